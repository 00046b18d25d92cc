// What a state holds, as stored: the values State (state.ts) and every backend read and write. Types only, so the
// backends and the state import them without importing each other.

export interface StateEntry {
  kind: string;
  /** the server id, for kinds addressed by id */
  id?: string;
  /** the managed fields as they were on the platform after the last apply: field path -> value (no secrets) */
  fields?: Record<string, unknown>;
  /** the digest of the document whose desired values `fields` are (resolve/digest.ts): --refresh changed takes a
   *  document with this digest as unchanged without resolving it; absent where they are not (not kept, secrets) */
  digest?: string;
  /** a create was sent at this time and its outcome is not known yet: look the resource up before creating again */
  pending_since?: string;
  /** ids that already matched the create before it was sent: never taken for the resource it made */
  existing?: string[];
  /** declared no more since this time: the platform keeps it, and a document that comes back takes it back */
  released_at?: string;
}

export interface Platform {
  /** the origin of the base URL */
  origin: string;
  environment: string;
}

export interface StateData {
  format_version: number;
  /** which history this state belongs to: set when it is first written, never changed (Terraform's lineage) */
  lineage?: string;
  /** how many times it was written by a run; a saved plan applies only to the serial it was made against */
  serial?: number;
  /** the configuration it belongs to (tapedeck.yaml's name, or its default), recorded by its first write */
  configuration?: string;
  /** the platform it belongs to, recorded by its first run: a run against another one is refused */
  platform?: Platform;
  /** `state migrate` moved it there: kept as a backup, never used or moved again (its ids are the new state's) */
  moved_to?: MovedTo;
  resources: Record<string, StateEntry>;
}

/** Where a migrated state went: the state (a file's absolute path, or the database as shown) and its environment. */
export interface MovedTo {
  state: string;
  environment: string;
  at: string;
}

/** An id and who manages it. */
export interface Owned {
  kind: string;
  id: string;
  configuration: string;
  environment: string;
  address: string;
}
