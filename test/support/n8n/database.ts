// What n8n's own database says, read directly (SQLite, read-only) with the sqlite3 driver of that n8n install: the
// proof that an execution is saved as waiting does not go through n8n's API (whose lists leave waiting ones out).
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

import type { N8nInstall } from './versions';

const runFile = promisify(execFile);

export interface ExecutionRow {
	id: string;
	status: string;
	finished: boolean;
	waitTill: string | null;
	startedAt: string | null;
	stoppedAt: string | null;
}

const QUERY = `
const [driverPath, file, column, value] = process.argv.slice(1);
const sqlite3 = require(driverPath);
const db = new sqlite3.Database(file, sqlite3.OPEN_READONLY, (openError) => {
	if (openError) { console.error(openError.message); process.exit(1); }
	const sql = 'SELECT id, status, finished, waitTill, startedAt, stoppedAt FROM execution_entity WHERE ' +
		(column === 'id' ? 'id' : 'workflowId') + ' = ? ORDER BY id';
	db.all(sql, [value], (error, rows) => {
		if (error) { console.error(error.message); process.exit(1); }
		console.log(JSON.stringify(rows));
		db.close();
	});
});`;

type RawRow = Omit<ExecutionRow, 'id' | 'finished'> & { id: number | string; finished: number };

async function query(
	install: N8nInstall,
	userFolder: string,
	column: 'id' | 'workflowId',
	value: string,
): Promise<ExecutionRow[]> {
	const n8nFolder = path.dirname(
		require.resolve('n8n/package.json', { paths: [path.dirname(install.n8nBin)] }),
	);
	const driverPath = require.resolve('sqlite3', { paths: [n8nFolder] });
	const { stdout } = await runFile(install.nodeBinary, [
		'-e',
		QUERY,
		driverPath,
		path.join(userFolder, '.n8n', 'database.sqlite'),
		column,
		value,
	]);
	return (JSON.parse(stdout) as RawRow[]).map((row) => ({
		...row,
		id: String(row.id),
		finished: row.finished === 1,
	}));
}

/** The execution's row in `execution_entity`, or undefined when there is none. */
export async function executionRow(
	install: N8nInstall,
	userFolder: string,
	executionId: string,
): Promise<ExecutionRow | undefined> {
	return (await query(install, userFolder, 'id', executionId))[0];
}

/** Every execution of a workflow, oldest first, waiting ones included. */
export async function workflowExecutionRows(
	install: N8nInstall,
	userFolder: string,
	workflowId: string,
): Promise<ExecutionRow[]> {
	return await query(install, userFolder, 'workflowId', workflowId);
}
