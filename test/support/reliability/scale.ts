// RELIABILITY_SCALE shrinks the counted batches for a quick local run (e.g. 0.1); the counts are the default.
export function reliabilityScale(): number {
	const raw = process.env.RELIABILITY_SCALE;
	if (raw === undefined || raw === '') return 1;
	const scale = Number(raw);
	if (!(scale > 0 && scale <= 1))
		throw new RangeError(`RELIABILITY_SCALE must be in (0, 1], not "${raw}"`);
	return scale;
}
