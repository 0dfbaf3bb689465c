/**
 * What a team replica lets each owner keep (issue 33, finding 2: requests with made-up keys, which
 * the provider refused with 401, still filled Redis for 30 days).
 *
 * - **Proof first.** An owner named by a provider key proves nothing until the provider accepts a
 *   model call of theirs (a 2xx answer to a request the gateway masks); until then their requests
 *   go upstream as they came and nothing is kept for them: no conversation, no claim, no output,
 *   no usage record. A 2xx to any other request proves nothing: a provider answers some paths
 *   without a key (Google's APIs their discovery document, a self-hosted server its health check
 *   or model list), and the gateway forwards every path. An owner named by a virtual key that
 *   exists is proven by the lookup. A 401 or 403 from the provider takes a proof back (a key
 *   revoked at the provider).
 * - **A budget.** Within `windowMs` an owner keeps at most `conversations` conversations,
 *   `records` usage records and `outputBytes` bytes of outputs; past any of them, their requests
 *   go upstream as they came, nothing more is kept, and the refusal is counted
 *   (`toolmask.gateway.owner_budget_refusals`). The turn never fails for it.
 *
 * Proofs are shared by the replicas (`OwnerProofs`: state/redis/redis-owner-proofs.ts, written
 * only after a 2xx), and remembered here. Budgets are counted in this replica's memory (at most
 * `MAX_OWNERS` owners, the least recently seen forgotten first): a team of N replicas lets an
 * owner keep at most N budgets.
 */

/** The proofs every replica shares; a failed call counts as no proof (nothing is kept). */
export interface OwnerProofs {
  has(owner: string): Promise<boolean>;
  prove(owner: string): Promise<void>;
  forget(owner: string): Promise<void>;
}

export interface OwnerBudget {
  conversations: number;
  records: number;
  outputBytes: number;
  windowMs: number;
}

/** @default budget: a busy person's day, several times over. */
export const DEFAULT_OWNER_BUDGET: OwnerBudget = {
  conversations: 2_000,
  records: 50_000,
  outputBytes: 2 * 1024 * 1024 * 1024,
  windowMs: 24 * 60 * 60_000,
};

/** Owners remembered at once (proofs and counts). */
export const MAX_OWNERS = 10_000;

export type BudgetResource = 'conversations' | 'records' | 'output_bytes';

interface Account {
  proven: boolean;
  windowStart: number;
  conversations: Set<string>;
  records: number;
  outputBytes: number;
}

export interface OwnerLedgerOptions {
  budget?: Partial<OwnerBudget>;
  /** Shared with the other replicas; none: this replica's memory alone. */
  proofs?: OwnerProofs;
  now?: () => number;
  /** Counts one request whose owner's budget was spent. */
  onRefusal?: (resource: BudgetResource) => void;
}

export class OwnerLedger {
  private readonly accounts = new Map<string, Account>();
  private readonly budget: OwnerBudget;
  private readonly now: () => number;

  constructor(private readonly options: OwnerLedgerOptions = {}) {
    this.budget = { ...DEFAULT_OWNER_BUDGET, ...options.budget };
    this.now = options.now ?? Date.now;
  }

  /** An owner proven by other means (a virtual key that exists). */
  prove(owner: string): void {
    this.account(owner).proven = true;
  }

  /** Whether `owner` proved who they are, here or on another replica (a failed check: no). */
  async proven(owner: string): Promise<boolean> {
    if (this.accounts.get(owner)?.proven) return true;
    if (!(await this.provenElsewhere(owner))) return false;
    this.account(owner).proven = true;
    return true;
  }

  /** Whether anything may be kept for a request of `owner` now. */
  async mayStore(owner: string): Promise<boolean> {
    let account = this.accounts.get(owner);
    if (!account?.proven) {
      if (!(await this.provenElsewhere(owner))) return false;
      account = this.account(owner);
      account.proven = true;
    }
    const spent = this.spent(account);
    if (spent) this.options.onRefusal?.(spent);
    return spent === undefined;
  }

  /** A conversation kept for `owner` (counted once per id within the window). */
  conversation(owner: string, conversationId: string): void {
    this.current(this.account(owner)).conversations.add(conversationId);
  }

  /**
   * The provider's answer to a request of `owner`, and what was kept for it. Only a model call's
   * 2xx proves the key (`modelCall`). An owner not proven gets no account from an answer that
   * proves nothing (made-up keys never fill the ledger).
   */
  answered(
    owner: string,
    status: number,
    kept: { outputBytes: number; records: number },
    modelCall: boolean,
  ): void {
    const accepted = modelCall && status >= 200 && status < 300;
    if (!accepted && !this.accounts.get(owner)?.proven) return;
    const account = this.account(owner);
    if (accepted && !account.proven) void this.options.proofs?.prove(owner).catch(() => undefined);
    if (!accepted && (status === 401 || status === 403)) {
      void this.options.proofs?.forget(owner).catch(() => undefined);
    }
    if (accepted) account.proven = true;
    else if (status === 401 || status === 403) account.proven = false;
    const current = this.current(account);
    current.outputBytes += kept.outputBytes;
    current.records += kept.records;
  }

  private async provenElsewhere(owner: string): Promise<boolean> {
    try {
      return (await this.options.proofs?.has(owner)) ?? false;
    } catch {
      return false;
    }
  }

  private spent(account: Account): BudgetResource | undefined {
    const current = this.current(account);
    if (current.conversations.size >= this.budget.conversations) return 'conversations';
    if (current.records >= this.budget.records) return 'records';
    if (current.outputBytes >= this.budget.outputBytes) return 'output_bytes';
    return undefined;
  }

  /** The account with its window restarted when it has run out. */
  private current(account: Account): Account {
    const now = this.now();
    if (now - account.windowStart >= this.budget.windowMs) {
      account.windowStart = now;
      account.conversations.clear();
      account.records = 0;
      account.outputBytes = 0;
    }
    return account;
  }

  private account(owner: string): Account {
    let account = this.accounts.get(owner);
    if (account) {
      this.accounts.delete(owner);
    } else {
      account = {
        proven: false,
        windowStart: this.now(),
        conversations: new Set(),
        records: 0,
        outputBytes: 0,
      };
    }
    this.accounts.set(owner, account);
    if (this.accounts.size > MAX_OWNERS) {
      const oldest = this.accounts.keys().next().value;
      if (oldest !== undefined) this.accounts.delete(oldest);
    }
    return account;
  }
}
