import { randomBytes } from 'node:crypto';

/** mulberry32: a tiny seeded PRNG, so fault injection and webhook jitter replay identically for one seed. */
export function mulberry32(seed: number): () => number {
	let state = seed >>> 0;
	return () => {
		state = (state + 0x6d2b79f5) >>> 0;
		let t = state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

/** Opaque identifiers ("upl_…", "job_…", "req_…") — unguessable, unlike the seeded fault stream. */
export function randomId(prefix: string, bytes = 12): string {
	return `${prefix}_${randomBytes(bytes).toString('hex')}`;
}

export function randomSeed(): number {
	return randomBytes(4).readUInt32LE(0);
}
