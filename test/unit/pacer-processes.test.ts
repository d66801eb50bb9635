// The rate-limit pacer when several n8n processes spend one account's budget (queue mode: workers and webhook
// processors, each with its own pacer and no channel between them). Simulated in virtual time against a service that
// counts fixed windows exactly as the spec's headers describe: each process runs a few executions that send
// requests back to back, waits as its pacer says, and repeats a request after a 429 as the retry policy does.
import { RateLimitPacer } from '../../src/client';

interface SimulationOptions {
	/** When each process starts sending (ms after the start); its length is the number of processes. */
	processStartsMs: number[];
	executionsPerProcess: number;
	limit: number;
	windowMs: number;
	windows: number;
	seed: number;
}

interface SimulationResult {
	/** 429 answers per window (index 0 = the window the run starts in). */
	rateLimitedByWindow: number[];
	/** Accepted requests per window, per process. */
	acceptedByWindow: number[][];
}

/** A small deterministic generator (mulberry32), so every run of the test sees the same latencies. */
function random(seed: number): () => number {
	let state = seed >>> 0;
	return () => {
		state = (state + 0x6d2b79f5) >>> 0;
		let t = state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

function simulate(options: SimulationOptions): SimulationResult {
	const start = Date.UTC(2026, 10, 23, 12, 0, 0);
	const end = start + options.windows * options.windowMs;
	const next = random(options.seed);
	const latency = () => 5 + Math.floor(next() * 60);
	const events: Array<{ at: number; order: number; run: () => void }> = [];
	let order = 0;
	const at = (time: number, run: () => void) => {
		events.push({ at: time, order: order++, run });
	};

	const windowOf = (time: number) => Math.floor((time - start) / options.windowMs);
	const used = new Map<number, number>();
	const rateLimitedByWindow = new Array<number>(options.windows).fill(0);
	const acceptedByWindow = Array.from({ length: options.windows }, () =>
		new Array<number>(options.processStartsMs.length).fill(0),
	);

	/** The service: counts the request in its window, answers with the spec's headers. */
	const serve = (
		time: number,
		process: number,
	): { status: number; headers: Record<string, string> } => {
		const window = windowOf(time);
		const resetSeconds = (start + (window + 1) * options.windowMs) / 1000;
		const spent = used.get(window) ?? 0;
		const headers = (remaining: number) => ({
			'x-ratelimit-limit': String(options.limit),
			'x-ratelimit-remaining': String(remaining),
			'x-ratelimit-reset': String(resetSeconds),
		});
		if (spent >= options.limit) {
			rateLimitedByWindow[window]++;
			const retryAfter = Math.max(1, Math.ceil(resetSeconds - time / 1000));
			return { status: 429, headers: { ...headers(0), 'retry-after': String(retryAfter) } };
		}
		used.set(window, spent + 1);
		acceptedByWindow[window][process]++;
		return { status: 200, headers: headers(options.limit - spent - 1) };
	};

	options.processStartsMs.forEach((startMs, process) => {
		const pacer = new RateLimitPacer();
		const send = (time: number) => {
			if (time >= end) return;
			const delay = pacer.reserve('writes', time);
			if (delay > 0) return at(time + delay, () => send(time + delay));
			const arrival = time + latency();
			at(arrival, () => {
				const answer = serve(arrival, process);
				const answered = arrival + latency();
				at(answered, () => {
					pacer.observe('writes', answer.headers, answered, answer.status !== 429);
					// A 429 waits for Retry-After plus up to 250 ms of jitter, as the client's retry policy does.
					const wait =
						answer.status === 429
							? Number(answer.headers['retry-after']) * 1000 + Math.floor(next() * 250)
							: 0;
					if (wait > 0) at(answered + wait, () => send(answered + wait));
					else send(answered);
				});
			});
		};
		for (let execution = 0; execution < options.executionsPerProcess; execution++) {
			at(start + startMs, () => send(start + startMs));
		}
	});

	while (events.length > 0) {
		events.sort((a, b) => a.at - b.at || a.order - b.order);
		const event = events.shift()!;
		if (event.at >= end) break;
		event.run();
	}
	return { rateLimitedByWindow, acceptedByWindow };
}

const total = (values: number[]) => values.reduce((sum, value) => sum + value, 0);

describe('RateLimitPacer shared by several processes (queue mode)', () => {
	const base = { executionsPerProcess: 5, limit: 15, windowMs: 5000, windows: 40 };
	const later = (values: number[]) => total(values.slice(1));

	it.each([3, 4, 5, 6])(
		'two processes of five executions each: 429s only in the first window (seed %i)',
		(seed) => {
			const result = simulate({ ...base, processStartsMs: [0, 0], seed });
			expect(later(result.rateLimitedByWindow)).toBe(0);
		},
	);

	it('two processes spend all but the odd request of every later window, in equal parts', () => {
		const result = simulate({ ...base, processStartsMs: [0, 0], seed: 7 });
		for (const window of result.acceptedByWindow.slice(1)) {
			expect(total(window)).toBeGreaterThanOrEqual(base.limit - 2);
			for (const accepted of window) expect(accepted).toBeGreaterThanOrEqual(6);
		}
	});

	it('alone, a process is never refused and spends the whole budget of every window', () => {
		const result = simulate({ ...base, processStartsMs: [0], seed: 3 });
		expect(total(result.rateLimitedByWindow)).toBe(0);
		for (const window of result.acceptedByWindow) expect(window).toEqual([base.limit]);
	});

	it('makes room for a process that starts later: refused only in its first two windows, then an equal part', () => {
		const joinsAt = 10;
		const result = simulate({ ...base, processStartsMs: [0, joinsAt * base.windowMs], seed: 5 });
		expect(total(result.rateLimitedByWindow.slice(0, joinsAt))).toBe(0);
		expect(total(result.rateLimitedByWindow.slice(joinsAt + 2))).toBe(0);
		for (const window of result.acceptedByWindow.slice(joinsAt + 3)) {
			expect(window[1]).toBeGreaterThanOrEqual(6);
		}
	});

	it.each([3, 4, 5, 6])(
		'three processes: after the first window, 429s under 1 % of the requests (seed %i)',
		(seed) => {
			const result = simulate({ ...base, limit: 30, processStartsMs: [0, 0, 0], seed });
			const accepted = later(result.acceptedByWindow.map(total));
			expect(later(result.rateLimitedByWindow)).toBeLessThanOrEqual(accepted / 100);
			expect(accepted).toBeGreaterThanOrEqual(0.9 * 30 * (base.windows - 1));
		},
	);
});

describe('RateLimitPacer: what single answers teach it', () => {
	const NOW = Date.UTC(2026, 10, 23, 12, 0, 0);
	const headers = (remaining: number, limit = 10) => ({
		'x-ratelimit-limit': String(limit),
		'x-ratelimit-remaining': String(remaining),
		'x-ratelimit-reset': String(NOW / 1000 + 60),
	});
	const reserveAll = (pacer: RateLimitPacer, times: number) =>
		Array.from({ length: times }, () => pacer.reserve('writes', NOW));

	it('keeps the lowest remaining of a window: an older answer arriving late gives no budget back', () => {
		const pacer = new RateLimitPacer({ safetyMarginMs: 0 });
		expect(reserveAll(pacer, 3)).toEqual([0, 0, 0]);
		pacer.observe('writes', headers(7), NOW);
		pacer.observe('writes', headers(9), NOW);
		pacer.observe('writes', headers(8), NOW);
		expect(reserveAll(pacer, 8)).toEqual([0, 0, 0, 0, 0, 0, 0, 60_000]);
	});

	it('does not count a 429 as its own request, and takes the window as spent', () => {
		const pacer = new RateLimitPacer({ safetyMarginMs: 0 });
		pacer.reserve('writes', NOW);
		pacer.observe('writes', headers(0), NOW, false);
		expect(pacer.reserve('writes', NOW)).toBe(60_000);
	});

	it('keeps to its part of the window once the answers show another process spending', () => {
		const pacer = new RateLimitPacer({ safetyMarginMs: 0 });
		pacer.reserve('writes', NOW);
		pacer.observe('writes', headers(9), NOW);
		pacer.reserve('writes', NOW);
		// Two requests of ours, yet five counted: someone else spends too. Our part is half of 10; 2 are spent.
		pacer.observe('writes', headers(5), NOW);
		expect(reserveAll(pacer, 4)).toEqual([0, 0, 0, 60_000]);
	});

	it('starts afresh when the service changes the bucket (a smaller limit, a window that ends sooner)', () => {
		const pacer = new RateLimitPacer({ safetyMarginMs: 0 });
		pacer.reserve('writes', NOW);
		pacer.observe('writes', headers(90, 100), NOW);
		// The account moves to 2 requests per 2 s window: the answer's reset is earlier than the old window's.
		pacer.reserve('writes', NOW);
		pacer.observe(
			'writes',
			{
				'x-ratelimit-limit': '2',
				'x-ratelimit-remaining': '1',
				'x-ratelimit-reset': String(NOW / 1000 + 2),
			},
			NOW,
		);
		expect(reserveAll(pacer, 2)).toEqual([0, 2_000]);
	});
});
