// Preloaded (`node --require`) into every process the local stack starts. When the stack's
// orchestrator dies without stopping its children (SIGKILL, a crash), each child notices that its
// parent is gone and stops itself with SIGTERM, so that nothing is left running.
const parent = Number(process.env.EXIT_WITH_PARENT_PID);

if (Number.isInteger(parent) && parent > 0) {
  const timer = setInterval(() => {
    let gone = process.ppid !== parent;
    try {
      process.kill(parent, 0);
    } catch {
      gone = true;
    }
    if (gone) {
      clearInterval(timer);
      process.kill(process.pid, 'SIGTERM');
    }
  }, 500);
  timer.unref();
}
