/** A started part of the stack. */
export interface ComponentHandle {
  /** Absent for a part that runs inside the stack's own process (the adapter proxy). */
  readonly pid?: number;
  stop(): Promise<void>;
}

/**
 * The processes of the local stack, by name: stopped in reverse start order, restartable where a
 * restart function was given. `pids` is a live object (stack.json shows it).
 */
export class Components {
  readonly pids: Record<string, number> = {};
  private readonly entries = new Map<
    string,
    { handle: ComponentHandle; restart?: () => Promise<ComponentHandle> }
  >();

  add(name: string, handle: ComponentHandle, restart?: () => Promise<ComponentHandle>): void {
    this.entries.set(name, { handle, ...(restart ? { restart } : {}) });
    if (handle.pid !== undefined) this.pids[name] = handle.pid;
  }

  /** Stops the component and starts it again the same way (same port, same environment). */
  async restart(name: string): Promise<void> {
    const entry = this.entries.get(name);
    if (!entry?.restart) throw new Error(`component ${name} cannot be restarted`);
    await entry.handle.stop();
    entry.handle = await entry.restart();
    if (entry.handle.pid !== undefined) this.pids[name] = entry.handle.pid;
  }

  async stopAll(): Promise<void> {
    for (const { handle } of [...this.entries.values()].reverse())
      await handle.stop().catch(() => undefined);
    this.entries.clear();
  }
}
