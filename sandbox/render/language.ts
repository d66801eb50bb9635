export interface DetectedLanguage {
	language: 'he' | 'en';
	dialect: 'he-IL' | 'en-US';
}

const HEBREW_LETTER = /\p{Script=Hebrew}/u;
const HEBREW_NAME_TOKENS = new Set(['he', 'heb', 'hebrew', 'ivrit', 'iw']);

/**
 * The filename's last path segment without its extension ('clip.final.wav' → 'clip.final'), as
 * artifact download names use it; 'Transcript' when nothing is left.
 */
export function filenameStem(filename: string): string {
	const baseName = filename.split(/[/\\]/u).pop() ?? '';
	const lastDot = baseName.lastIndexOf('.');
	return (lastDot === -1 ? baseName : baseName.slice(0, lastDot)).trim() || 'Transcript';
}

/**
 * The sandbox "hears" nothing, so language detection is a rule on the filename: Hebrew (he, he-IL)
 * when the name contains a Hebrew letter or, split at every non-alphanumeric character, a token
 * he / heb / hebrew / ivrit / iw (case-insensitive, e.g. `interview_he.wav`, `Ivrit-lesson.mp3`);
 * English (en, en-US) otherwise. Whole tokens only, so `the-meeting.wav` stays English.
 */
export function detectLanguage(filename: string): DetectedLanguage {
	const stem = filenameStem(filename);
	const tokens = stem.toLowerCase().split(/[^\p{L}\p{N}]+/u);
	const hebrew = HEBREW_LETTER.test(stem) || tokens.some((token) => HEBREW_NAME_TOKENS.has(token));
	return hebrew ? { language: 'he', dialect: 'he-IL' } : { language: 'en', dialect: 'en-US' };
}
