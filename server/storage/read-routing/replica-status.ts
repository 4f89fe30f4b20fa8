/**
 * Where reads go while a read replica is configured, as /healthz reports it: `replica` while it
 * answers and is within the lag limit; else `primary`, with why (`down`: it cannot be reached;
 * `lagging`: behind by more than the limit; `not-standby`: the URL names a server that is not in
 * recovery, a promoted or wrongly named one; `starting`: not checked yet).
 */
export interface ReplicaStatus {
  reads: 'replica' | 'primary';
  state: 'ok' | 'down' | 'lagging' | 'not-standby' | 'starting';
  /** How far behind the primary it was at its last check; null: unknown. */
  lagSeconds: number | null;
}
