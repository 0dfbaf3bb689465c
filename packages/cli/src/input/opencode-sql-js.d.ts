/**
 * The part of sql.js (1.17.0, no type declarations of its own) that the OpenCode database reader
 * uses (and its tests: `run`, `export` to make a database): open a database from bytes, run a
 * prepared statement, close.
 */
declare module 'sql.js' {
  export type SqlValue = number | string | Uint8Array | null;

  export interface Statement {
    bind(values?: SqlValue[]): boolean;
    step(): boolean;
    get(): SqlValue[];
    free(): boolean;
  }

  export interface Database {
    prepare(sql: string): Statement;
    run(sql: string): Database;
    export(): Uint8Array;
    close(): void;
  }

  export interface SqlJsStatic {
    Database: new (data?: Uint8Array | null) => Database;
  }

  export default function initSqlJs(config?: Record<string, unknown>): Promise<SqlJsStatic>;
}
