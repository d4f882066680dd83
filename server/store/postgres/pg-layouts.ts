import type pg from 'pg';
import type { FaultLog } from '../../fault-log.js';
import type { Logger } from '../../log.js';
import type { IndexDeclarations } from '../store.js';
import { rethrowAsStoreFault } from './pg-faults.js';
import { ensureDeclaredIndexes } from './pg-indexes.js';
import { layOutTable } from './pg-migrations.js';
import { alterTableSql, tableLayout, type TableLayout } from './pg-tables.js';

/**
 * Each collection's table, laid out for the declarations (pg-tables.ts),
 * and the ordinary indexes lists run on, made from them: created in the
 * background and concurrently (writes go on), by one instance at a time.
 */
export class TableLayouts {
  private declared: IndexDeclarations = {};
  private indexing: Promise<void> = Promise.resolve();
  /** Each collection's table, laid out for the current declarations, once it exists with their columns. */
  private tables = new Map<string, Promise<TableLayout>>();
  private closing = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly connectionString: string,
    private readonly connections: FaultLog,
    private readonly log: Logger,
    /** The tables as they were when the store opened: a table already laid out needs no DDL. */
    private readonly schemaAtOpen: Map<string, Map<string, string>>,
  ) {}

  declare(declarations: IndexDeclarations): void {
    this.declared = declarations;
    // Tables laid out before: laid out again, for the columns the declarations add.
    this.tables = new Map();
    this.indexing = this.ensureIndexes().catch((error: Error) => {
      // Lists still work meanwhile (by scan); the indexes are made once the database lets us.
      this.log.warn('could not create the declared indexes yet; trying again in 30 s', { error: error.message });
      const retry = setTimeout(() => this.closing || this.declare(declarations), 30_000);
      retry.unref();
    });
  }

  /** The collection's table, created or given the declared columns first when it lacks them. */
  of = (collection: string): Promise<TableLayout> => {
    let ready = this.tables.get(collection);
    if (!ready) {
      ready = this.layOut(tableLayout(collection, this.declared[collection]));
      this.tables.set(collection, ready);
      // A failure is not kept: the next use tries again.
      ready.catch(() => this.tables.get(collection) === ready && this.tables.delete(collection));
    }
    return ready;
  };

  /** Resolves once the declared indexes exist. */
  ready(): Promise<void> {
    return this.indexing;
  }

  async close(): Promise<void> {
    this.closing = true;
    await this.indexing;
  }

  private async layOut(layout: TableLayout): Promise<TableLayout> {
    const known = this.schemaAtOpen.get(layout.table);
    if (known && alterTableSql(layout, known).length === 0) return layout;
    await layOutTable(this.connectionString, layout, (error) => this.connections.failed(error)).catch(
      rethrowAsStoreFault,
    );
    return layout;
  }

  private async ensureIndexes(): Promise<void> {
    await ensureDeclaredIndexes(this.pool, await Promise.all(Object.keys(this.declared).map(this.of)));
  }
}
