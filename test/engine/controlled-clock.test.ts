// The controlled clock (test/support/clock/controlled-clock.ts) that the engine tier's long waits run on: it skips only
// the time the process is idle and fires its timers only then, one due time at a time, so what happens on it happens in
// the order the test means however loaded the machine; while requests on loopback are being handled it runs at real
// speed.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import * as n8nWorkflow from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { useControlledClock } from '../support/clock/controlled-clock';

const clock = useControlledClock();

/** An HTTP server on loopback that spends `busyMs` of CPU on each request before it answers. */
async function busyServer(busyMs: number): Promise<{ url: string; server: Server }> {
	const server = createServer((_request, response) => {
		const until = performance.now() + busyMs;
		const spin = () => {
			const sliceEnd = Math.min(until, performance.now() + 5);
			while (performance.now() < sliceEnd);
			if (performance.now() < until) setImmediate(spin);
			else response.end('done');
		};
		spin();
	});
	server.listen(0, '127.0.0.1');
	await once(server, 'listening');
	return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, server };
}

describe('the controlled clock', () => {
	it("jumps an idle process to its next timer: timers fire in their time's order, set order for equal times", async () => {
		const fired: string[] = [];
		const startMs = clock.now();
		clock.setTimer(() => fired.push('b at 90 s'), 90_000);
		clock.setTimer(() => fired.push('a at 5 s'), 5_000);
		clock.setTimer(() => fired.push('c at 90 s, set after b'), 90_000);
		const realStart = performance.now();
		const jumps = { ...clock.jumps };
		await clock.sleep(120_000);
		expect(fired).toEqual(['a at 5 s', 'b at 90 s', 'c at 90 s, set after b']);
		expect(clock.now() - startMs).toBeGreaterThanOrEqual(120_000);
		// To 5 s, to 90 s (both timers), to 120 s.
		expect(clock.jumps.count - jumps.count).toBe(3);
		expect(clock.jumps.totalMs - jumps.totalMs).toBeGreaterThan(110_000);
		expect(performance.now() - realStart).toBeLessThan(10_000);
	});

	it('is the time of Date.now() and new Date()', async () => {
		await clock.sleep(3_600_000);
		const now = clock.now();
		expect(Math.abs(Date.now() - now)).toBeLessThan(50);
		expect(Math.abs(new Date().getTime() - now)).toBeLessThan(50);
		expect(new Date(0).getTime()).toBe(0);
		expect(new Date() instanceof Date).toBe(true);
	});

	it("puts n8n-workflow's sleeps on it, and an aborted sleep fails as n8n-workflow's own does", async () => {
		const startMs = Date.now();
		await sleep(600_000);
		expect(Date.now() - startMs).toBeGreaterThanOrEqual(600_000);
		// n8n-workflow up to 2.33 waits with a signal in sleepWithAbort, 2.34 and later in sleep itself.
		const sleepWithSignal =
			(n8nWorkflow as { sleepWithAbort?: typeof sleep }).sleepWithAbort ??
			(sleep as (ms: number, signal: AbortSignal) => Promise<void>);
		// A signal aborted before the sleep: n8n-workflow's own failure, as it is.
		const own = await sleepWithSignal(1, AbortSignal.abort()).catch((error: Error) => error);
		const abort = new AbortController();
		const aborted = sleepWithSignal(600_000, abort.signal).catch((error: Error) => error);
		abort.abort();
		const failure = await aborted;
		expect(own).toBeInstanceOf(Error);
		expect([failure?.constructor, failure?.message]).toEqual([own?.constructor, own?.message]);
	});

	it('does not jump while a loopback exchange is being handled: the time on the clock is the real time it took', async () => {
		const { url, server } = await busyServer(400);
		try {
			let fired = false;
			clock.setTimer(() => (fired = true), 60_000);
			const jumps = clock.jumps.count;
			const startMs = clock.now();
			const realStart = performance.now();
			expect(await (await fetch(url)).text()).toBe('done');
			const realMs = performance.now() - realStart;
			const clockMs = clock.now() - startMs;
			expect([fired, clock.jumps.count - jumps]).toEqual([false, 0]);
			expect(clockMs).toBeGreaterThanOrEqual(400);
			expect(clockMs - realMs).toBeLessThan(50);
		} finally {
			server.close();
		}
	});

	it('fires a timer that came due during work once the work is over, and the next one once its work is over', async () => {
		const { url, server } = await busyServer(300);
		try {
			const order: string[] = [];
			let firstDone: Promise<void> | undefined;
			clock.setTimer(() => {
				order.push('first timer');
				firstDone = fetch(url)
					.then(async (answer) => await answer.text())
					.then(() => void order.push("the first timer's work done"));
			}, 10);
			clock.setTimer(() => order.push('second timer'), 20);
			expect(await (await fetch(url)).text()).toBe('done');
			order.push('work done');
			await clock.sleep(1_000);
			await firstDone;
			expect(order).toEqual([
				'work done',
				'first timer',
				"the first timer's work done",
				'second timer',
			]);
		} finally {
			server.close();
		}
	});

	it('lets a lookout (until) act on what it waits for before the clock jumps past it', async () => {
		let seen = false;
		const startMs = clock.now();
		const ticks: number[] = [];
		clock.setTimer(() => ticks.push(clock.now() - startMs), 30_000);
		setImmediate(() => (seen = true));
		await clock.until('the flag', () => (seen ? true : undefined), 60_000);
		expect(ticks).toEqual([]);
		await expect(clock.until('never', () => undefined, 10_000)).rejects.toThrow(
			'never: not within 10000 ms',
		);
		expect(ticks).toEqual([]);
		await clock.sleep(30_000);
		expect(ticks).toHaveLength(1);
	});

	it('goes on when a lookout fails, and keeps its error for the test', async () => {
		let looks = 0;
		const stop = clock.lookOut(async () => {
			looks++;
			if (looks === 1) throw new Error('the sandbox did not answer');
			return false;
		});
		try {
			const startMs = clock.now();
			await clock.sleep(60_000);
			expect(clock.now() - startMs).toBeGreaterThanOrEqual(60_000);
			expect(looks).toBeGreaterThanOrEqual(1);
			expect(clock.takeLookoutFailures()).toEqual([new Error('the sandbox did not answer')]);
		} finally {
			stop();
		}
	});
});
