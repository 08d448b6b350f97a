// Retention: final items past RETENTION_DAYS archived to gzip files and removed; restored by the CLI.

export { createArchiver, type ArchiveTarget, type PassResult } from './archiver.js';
export { archiveFiles, dayFile } from './archive-files.js';
export { restoreArchive, type RestoreResult } from './restore.js';
export { startRetention, type Retention, type RetentionHealth } from './retention.js';
export { createRetentionStore } from './store/index.js';
export type { RetentionStore } from './store/port.js';
