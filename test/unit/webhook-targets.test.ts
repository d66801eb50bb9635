import { isLocalHost, webhookTargetProblem } from '../../src/webhooks';

// Spec 6, rules 5 and 6, as far as a URL alone tells: what the service will certainly refuse as a webhook target.
describe('webhookTargetProblem', () => {
	it.each([
		'https://n8n.example.com/webhook-waiting/42',
		'https://n8n.example.com:443/webhook-waiting/42?signature=ab12',
		'https://8.8.8.8/webhook-waiting/1',
		'https://[2606:4700::1111]/webhook-waiting/1',
		'https://[::ffff:8.8.8.8]/x',
	])('has nothing against %s', (url) => {
		expect(webhookTargetProblem(url)).toBeUndefined();
	});

	it.each([
		['http://n8n.example.com/webhook-waiting/1', 'it is http, not https'],
		['https://n8n.example.com:5678/webhook-waiting/1', 'it uses port 5678, not 443'],
		['https://localhost/webhook-waiting/1', 'its host localhost is not a public address'],
		['https://n8n.localhost/x', 'its host n8n.localhost is not a public address'],
		['https://127.0.0.1/x', 'its host 127.0.0.1 is not a public address'],
		['https://127.1/x', 'its host 127.0.0.1 is not a public address'],
		['https://0x7f000001/x', 'its host 127.0.0.1 is not a public address'],
		['https://10.1.2.3/x', 'its host 10.1.2.3 is not a public address'],
		['https://172.20.0.5/x', 'its host 172.20.0.5 is not a public address'],
		['https://192.168.1.10/x', 'its host 192.168.1.10 is not a public address'],
		['https://169.254.169.254/x', 'its host 169.254.169.254 is not a public address'],
		['https://100.64.0.1/x', 'its host 100.64.0.1 is not a public address'],
		['https://[::1]/x', 'its host [::1] is not a public address'],
		['https://[fd00::1]/x', 'its host [fd00::1] is not a public address'],
		['https://[fe80::1]/x', 'its host [fe80::1] is not a public address'],
		['https://[::ffff:127.0.0.1]/x', 'its host [::ffff:7f00:1] is not a public address'],
		['not a url', 'it is not a URL'],
	])('refuses %s: %s', (url, problem) => {
		expect(webhookTargetProblem(url)).toBe(problem);
	});
});

describe('isLocalHost (where a service would be local to n8n)', () => {
	it.each(['127.0.0.1', 'localhost', '[::1]', '192.168.0.2', 'sandbox.localhost'])(
		'%s is local',
		(host) => {
			expect(isLocalHost(host)).toBe(true);
		},
	);
	it.each(['api.example.com', '8.8.8.8', '[2001:4860::8888]'])('%s is not', (host) => {
		expect(isLocalHost(host)).toBe(false);
	});
});
