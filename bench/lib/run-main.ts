/** Runs a benchmark process's `main` and exits with its outcome: 0, or 1 with the error's stack on stderr. */
export function runMain(main: () => Promise<void>): void {
	main().then(
		() => process.exit(0),
		(error: unknown) => {
			process.stderr.write(
				`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
			);
			process.exit(1);
		},
	);
}
