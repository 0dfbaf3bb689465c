/**
 * The store's own refusals (`StoreError`), coded like the file system's errors: a masking failure
 * then reads the same whichever refused, and the code reaches telemetry as the failure's code.
 * Not exported from the package: callers branch on `code`, as they do for an errno.
 */
import { ToolmaskError } from '../utils/toolmaskError.js';

/**
 * A save the store refuses, coded like the file system's own errors so a masking failure reads
 * the same either way (`ENOTDIR`: a folder on the way is a symlink or no plain directory; `EINVAL`:
 * a file name that is not one plain name). The codes reach telemetry as failure codes.
 */
export class StoreError extends ToolmaskError<'ENOTDIR' | 'EINVAL'> {
  constructor(message: string, code: 'ENOTDIR' | 'EINVAL') {
    super(code, message);
  }
}
