// How long a poll of the Polling Trigger may work (nodes/TranscriptionServicePollingTrigger/poll-times.ts): the
// shortest gap between two ticks of its Poll Times, cross-checked against the `cron` library n8n schedules polls
// with (n8n-workflow's toCronExpression turns each entry into the expression it runs), n8n's budget for a poll, and
// the ticks seen when the parameter does not tell.
import { CronTime } from 'cron';
import { toCronExpression } from 'n8n-workflow';

import {
	pollWorkMs,
	shortestTickGapMs,
	TickGaps,
} from '../../nodes/TranscriptionServicePollingTrigger/poll-times';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** The shortest gap between the next `count` ticks the cron library schedules for one Poll Times entry (UTC). */
function cronShortestGap(item: Parameters<typeof toCronExpression>[0], count: number): number {
	const ticks = new CronTime(toCronExpression(item), 'UTC')
		.sendAt(count)
		.map((tick) => tick.toMillis());
	let shortest = Number.POSITIVE_INFINITY;
	for (let index = 1; index < ticks.length; index++) {
		shortest = Math.min(shortest, ticks[index] - ticks[index - 1]);
	}
	return shortest;
}

describe('shortestTickGapMs', () => {
	test.each(Array.from({ length: 90 }, (_, index) => index + 1))(
		'every %i minutes: as the cron library schedules it',
		(value) => {
			const item = { mode: 'everyX', value, unit: 'minutes' } as const;
			expect(shortestTickGapMs({ item: [item] })).toBe(
				cronShortestGap(item, 2 * Math.ceil(60 / value) + 2),
			);
		},
	);

	test.each(Array.from({ length: 30 }, (_, index) => index + 1))(
		'every %i hours: as the cron library schedules it',
		(value) => {
			const item = { mode: 'everyX', value, unit: 'hours' } as const;
			expect(shortestTickGapMs({ item: [item] })).toBe(
				cronShortestGap(item, 2 * Math.ceil(24 / value) + 2),
			);
		},
	);

	test.each([
		[{ mode: 'everyMinute' }, MINUTE],
		[{ mode: 'everyHour', minute: 7 }, HOUR],
	] as const)('%j: as the cron library schedules it', (item, gap) => {
		expect(shortestTickGapMs({ item: [item] })).toBe(gap);
		expect(cronShortestGap(item, 50)).toBe(gap);
	});

	test.each([
		[{ mode: 'everyDay', hour: 9, minute: 0 }, DAY],
		[{ mode: 'everyWeek', hour: 9, minute: 0, weekday: 1 }, 7 * DAY],
		[{ mode: 'everyMonth', hour: 9, minute: 0, dayOfMonth: 15 }, 28 * DAY],
	] as const)(
		'%j: an hour less than the shortest the cron library schedules in UTC (a daylight-saving day)',
		(item, shortestInUtc) => {
			expect(shortestTickGapMs({ item: [item] })).toBe(shortestInUtc - HOUR);
			expect(cronShortestGap(item, 14)).toBeGreaterThanOrEqual(shortestInUtc);
		},
	);

	test('a custom cron expression, several entries or no parameter: not told', () => {
		expect(
			shortestTickGapMs({ item: [{ mode: 'custom', cronExpression: '0 */5 * * * *' }] }),
		).toBeUndefined();
		expect(
			shortestTickGapMs({ item: [{ mode: 'everyHour', minute: 0 }, { mode: 'everyMinute' }] }),
		).toBeUndefined();
		expect(shortestTickGapMs(undefined)).toBeUndefined();
		expect(shortestTickGapMs({ item: [{ mode: 'everyX', value: 0, unit: 'minutes' }] })).toBe(
			undefined,
		);
	});
});

describe('pollWorkMs', () => {
	test.each([
		[MINUTE, undefined, 54_000],
		[15 * MINUTE, undefined, 14 * MINUTE],
		[HOUR, undefined, 59 * MINUTE],
		[DAY - HOUR, undefined, DAY - HOUR - MINUTE],
		[HOUR, 5 * MINUTE, 4.5 * MINUTE],
		[HOUR, 45_000, 40_000],
		[5_000, undefined, 2_500],
		[8_000, undefined, 4_000],
	])('a gap of %i ms and n8n budget %s: works %i ms', (gap, budget, work) => {
		expect(pollWorkMs(gap, budget)).toBe(work);
	});
});

describe('TickGaps', () => {
	test('a minute until two ticks were seen, then the shortest gap among the last ten', () => {
		const gaps = new TickGaps();
		expect(gaps.shortestMs()).toBe(MINUTE);
		gaps.tick(0);
		expect(gaps.shortestMs()).toBe(MINUTE);
		gaps.tick(8 * HOUR);
		gaps.tick(24 * HOUR);
		expect(gaps.shortestMs()).toBe(8 * HOUR);
		for (let day = 2; day < 12; day++) gaps.tick(day * 24 * HOUR);
		expect(gaps.shortestMs()).toBe(24 * HOUR);
	});
});
