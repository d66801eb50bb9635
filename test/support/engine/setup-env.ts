// n8n-core reads these when InstanceSettings is first built: set them before any test imports it.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

process.env.N8N_USER_FOLDER ??= mkdtempSync(path.join(tmpdir(), 'tss-n8n-user-'));
process.env.N8N_ENCRYPTION_KEY ??= 'engine-test-encryption-key';
process.env.N8N_DIAGNOSTICS_ENABLED = 'false';
process.env.N8N_VERSION_NOTIFICATIONS_ENABLED = 'false';
process.env.N8N_LOG_LEVEL ??= 'silent';
