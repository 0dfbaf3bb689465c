/**
 * `outputs gc`: the retention rule of `@toolmask/core` (storage/retention.ts), the same one the
 * installation applies at install time with `retentionDays`. Only direct `session-*` children of
 * `tool-outputs/` that are real folders (not symlinks) are candidates, each is checked to resolve
 * inside `tool-outputs/` before it is removed; nothing outside that folder is ever touched.
 */
export {
  findExpiredSessionFolders,
  removeSessionFolder,
  type SessionFolder,
} from '@toolmask/core/storage';
