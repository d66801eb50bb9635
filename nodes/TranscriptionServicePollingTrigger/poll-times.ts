// How long one poll may work. n8n starts a poll at every tick of Poll Times whether or not the last one has ended, and
// n8n 2.41 and later tell a poll how long it may take (getPollBudgetMs): a poll that drains a backlog stops starting
// requests early enough to end before the next tick and within that budget. No I/O: the node reads the parameter and
// the clock.

const SECOND_MS = 1000;
const MINUTE_MS = 60 * SECOND_MS;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

/**
 * The shortest time between two ticks of `pollTimes` as n8n's editor writes it (one entry of the fixed modes; n8n
 * turns each into a cron expression, n8n-workflow's toCronExpression), or undefined when it cannot tell: a custom cron
 * expression, or several entries, whose ticks interleave. Days, weeks and months are an hour shorter, for a day with a
 * daylight-saving change; a month is at least 28 days.
 */
export function shortestTickGapMs(pollTimes: unknown): number | undefined {
	const items = (pollTimes as { item?: unknown } | undefined)?.item;
	if (!Array.isArray(items) || items.length !== 1) return undefined;
	const item = items[0] as { mode?: unknown; value?: unknown; unit?: unknown };
	switch (item.mode) {
		case 'everyMinute':
			return MINUTE_MS;
		case 'everyHour':
			return HOUR_MS;
		case 'everyX': {
			const value = Number(item.value);
			if (!Number.isInteger(value) || value < 1) return undefined;
			if (item.unit === 'minutes') return everyStep(value, 60) * MINUTE_MS;
			if (item.unit === 'hours') return everyStep(value, 24) * HOUR_MS;
			return undefined;
		}
		case 'everyDay':
			return DAY_MS - HOUR_MS;
		case 'everyWeek':
			return 7 * DAY_MS - HOUR_MS;
		case 'everyMonth':
			return 28 * DAY_MS - HOUR_MS;
		default:
			return undefined;
	}
}

/**
 * The shortest gap of a cron field `*\/step` over 0 … range − 1: ticks at 0, step, 2 × step …, and from the last back
 * to 0 the wrap, which may be shorter (every 7 minutes: …, :49, :56, then :00).
 */
function everyStep(step: number, range: number): number {
	if (step >= range) return range;
	const last = step * Math.floor((range - 1) / step);
	return Math.min(step, range - last);
}

/**
 * How long a poll may go on starting requests: until the next tick (`gapMs` after it began) or n8n's budget, whichever
 * comes first, less a margin for what is still under way then — a tenth of that time, between 5 seconds (half the time
 * at most) and a minute.
 */
export function pollWorkMs(gapMs: number, budgetMs: number | undefined): number {
	const span = Math.min(gapMs, budgetMs ?? Number.POSITIVE_INFINITY);
	const margin = Math.min(MINUTE_MS, Math.max(Math.min(5 * SECOND_MS, span / 2), span / 10));
	return Math.max(0, span - margin);
}

/**
 * The starts of the last polls of one trigger in this process, for Poll Times whose gaps the parameter does not tell:
 * the shortest gap seen, a minute (n8n's shortest) until two polls have been seen.
 */
export class TickGaps {
	private readonly starts: number[] = [];

	constructor(private readonly kept = 10) {}

	/** A poll starts (also one skipped because the last still runs): a tick. */
	tick(nowMs: number): void {
		this.starts.push(nowMs);
		if (this.starts.length > this.kept) this.starts.shift();
	}

	shortestMs(): number {
		let shortest = Number.POSITIVE_INFINITY;
		for (let index = 1; index < this.starts.length; index++) {
			shortest = Math.min(shortest, this.starts[index] - this.starts[index - 1]);
		}
		return Number.isFinite(shortest) && shortest > 0 ? shortest : MINUTE_MS;
	}
}
