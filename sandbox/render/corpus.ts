/** What the sandbox "hears": a meeting, as parallel English/Hebrew sentences (index i is the same sentence). */
export interface CorpusSentence {
	en: string;
	he: string;
}

export const MEETING_CORPUS: readonly CorpusSentence[] = [
	{
		en: 'Good morning, and thank you all for being here today.',
		he: 'בוקר טוב, ותודה לכולכם שהגעתם היום.',
	},
	{
		en: "Let's start with a quick update on where the project stands.",
		he: 'נתחיל בעדכון קצר על המצב של הפרויקט.',
	},
	{
		en: 'Over the last two weeks we finished the first version of the design.',
		he: 'בשבועיים האחרונים סיימנו את הגרסה הראשונה של העיצוב.',
	},
	{
		en: 'The feedback from our early users has been very encouraging.',
		he: 'המשוב מהמשתמשים הראשונים שלנו מעודד מאוד.',
	},
	{
		en: 'Most of them said the new interface is easier to understand.',
		he: 'רובם אמרו שהממשק החדש קל יותר להבנה.',
	},
	{
		en: 'A few people asked for better support on mobile devices.',
		he: 'כמה אנשים ביקשו תמיכה טובה יותר במכשירים ניידים.',
	},
	{ en: 'We plan to address that in the next release.', he: 'אנחנו מתכננים לטפל בזה בגרסה הבאה.' },
	{
		en: 'Before we move on, does anyone have a question so far?',
		he: 'לפני שנמשיך, למישהו יש שאלה עד עכשיו?',
	},
	{
		en: 'I wanted to ask how long the testing phase is going to take.',
		he: 'רציתי לשאול כמה זמן יימשך שלב הבדיקות.',
	},
	{
		en: 'We expect it to take about three weeks, depending on the results.',
		he: 'אנחנו מעריכים שזה ייקח בערך שלושה שבועות, תלוי בתוצאות.',
	},
	{
		en: 'That sounds reasonable, as long as we keep the customers informed.',
		he: 'זה נשמע סביר, כל עוד נעדכן את הלקוחות.',
	},
	{
		en: 'Our support team will send a short summary every Friday.',
		he: 'צוות התמיכה ישלח סיכום קצר בכל יום שישי.',
	},
	{
		en: "Now let's talk about the budget for the coming quarter.",
		he: 'עכשיו בואו נדבר על התקציב לרבעון הקרוב.',
	},
	{
		en: 'We stayed within the plan, and even saved a little on hosting.',
		he: 'עמדנו בתוכנית, ואפילו חסכנו קצת באחסון.',
	},
	{
		en: 'Part of the savings will go toward hiring another developer.',
		he: 'חלק מהחיסכון ילך לגיוס מפתח נוסף.',
	},
	{
		en: 'The interviews for that position begin next month.',
		he: 'הראיונות לתפקיד הזה יתחילו בחודש הבא.',
	},
	{
		en: 'I think we should also invest more time in documentation.',
		he: 'אני חושב שכדאי להשקיע יותר זמן גם בתיעוד.',
	},
	{
		en: 'Good documentation saves everyone a lot of questions later on.',
		he: 'תיעוד טוב חוסך לכולם הרבה שאלות בהמשך.',
	},
	{
		en: "Agreed, let's put it on the list for the next sprint.",
		he: 'מסכים, בואו נכניס את זה לרשימה של הספרינט הבא.',
	},
	{
		en: 'There is one more thing I would like to mention.',
		he: 'יש עוד דבר אחד שהייתי רוצה להזכיר.',
	},
	{ en: 'The conference in the spring is looking for speakers.', he: 'הכנס באביב מחפש מרצים.' },
	{
		en: 'It would be a great opportunity to present what we have built.',
		he: 'זו תהיה הזדמנות מצוינת להציג את מה שבנינו.',
	},
	{
		en: 'Whoever is interested can send me a short proposal by email.',
		he: 'מי שמעוניין יכול לשלוח לי הצעה קצרה במייל.',
	},
	{
		en: "Let's take a short break and continue in ten minutes.",
		he: 'בואו ניקח הפסקה קצרה ונמשיך בעוד עשר דקות.',
	},
	{
		en: 'Welcome back, we have a few more items on the agenda.',
		he: 'ברוכים השבים, נשארו לנו עוד כמה נושאים על סדר היום.',
	},
	{
		en: 'The new office will be ready at the beginning of the summer.',
		he: 'המשרד החדש יהיה מוכן בתחילת הקיץ.',
	},
	{
		en: 'Everyone will get a desk near a window, as promised.',
		he: 'כל אחד יקבל שולחן ליד חלון, כמו שהבטחנו.',
	},
	{
		en: 'To sum up, we are on schedule and the team is in good shape.',
		he: 'לסיכום, אנחנו עומדים בלוח הזמנים והצוות במצב טוב.',
	},
	{
		en: 'Thank you all, and see you at the same time next week.',
		he: 'תודה לכולם, ונתראה באותה שעה בשבוע הבא.',
	},
];

/** The test-key "mock summary": says plainly that nothing was transcribed. */
export const MOCK_CORPUS: readonly CorpusSentence[] = [
	{
		en: 'This is a test-mode mock transcript from the Transcription Service sandbox.',
		he: 'זהו תמלול לדוגמה במצב בדיקה מסביבת הבדיקות של שירות התמלול.',
	},
	{
		en: 'Test keys complete at once and return this fixed summary instead of processing the audio.',
		he: 'מפתחות בדיקה מסתיימים מיד ומחזירים את הסיכום הקבוע הזה במקום לעבד את השמע.',
	},
	{
		en: 'Use a live key to transcribe the uploaded media for real.',
		he: 'השתמשו במפתח חי כדי לתמלל באמת את המדיה שהועלתה.',
	},
];

/** Introduces the user prompt's vocabulary in the first segment. */
export const PROMPT_VOCABULARY_SENTENCE = {
	en: (terms: string) => `We will also talk about ${terms}.`,
	he: (terms: string) => `נדבר גם על ${terms}.`,
};
