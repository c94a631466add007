/** This app instance among the replicas; random per start. */
export abstract class ReplicaId {
  abstract readonly value: string;
}
