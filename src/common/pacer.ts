/** How long a loop over many entries may hold the replica's thread before other work runs. */
const SLICE_MS = 10;

/**
 * Lets a long synchronous loop share the replica's one thread: `turn()`, awaited before each
 * entry, yields to the event loop once SLICE_MS have gone by since the last yield. A sync of a
 * gateway with hundreds of tools (admitting, hashing and scanning each) held every other request
 * of the replica for the whole list, over a second on a slow machine.
 */
export class Pacer {
  private since = performance.now();

  async turn(): Promise<void> {
    if (performance.now() - this.since < SLICE_MS) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.since = performance.now();
  }
}
