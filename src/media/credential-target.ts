// Where the secret of a Media Link credential may go: only to a host it names, and only over https:// (http:// on
// this machine's loopback, as for the service's own key).
import { isLoopbackHost } from '../client/base-url';
import { hostList, hostMatches } from './link';

/** Why the secret must not go to `target`, or undefined when it may; `allowedHosts` is the credential's field. */
export function mediaLinkTargetProblem(allowedHosts: string, target: URL): string | undefined {
	const allowed = hostList(allowedHosts);
	if (!hostMatches(target.hostname, allowed)) {
		return `This Media Link credential is sent only to ${allowed.length ? allowed.join(', ') : 'the hosts in its Allowed Hosts (none set)'}; the link goes to ${target.hostname}. Add that host to the credential's Allowed Hosts if it is meant to receive it.`;
	}
	const loopbackHttp = target.protocol === 'http:' && isLoopbackHost(target.hostname);
	if (target.protocol !== 'https:' && !loopbackHttp) {
		return `This Media Link credential is sent only over https:// (http:// only to this machine); the link to ${target.hostname} is ${target.protocol}//, where the secret would cross the network unencrypted.`;
	}
	return undefined;
}
