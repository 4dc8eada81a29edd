// Preloaded (`node --require`) into every process the local stack starts. When the stack's
// orchestrator dies without stopping its children (SIGKILL, a crash), each child notices that its
// parent is gone and stops itself with SIGTERM, so that nothing is left running.
const parentPid = Number(process.env.EXIT_WITH_PARENT_PID);

if (Number.isInteger(parentPid) && parentPid > 0) {
  const timer = setInterval(() => {
    let gone = process.ppid !== parentPid;
    try {
      process.kill(parentPid, 0);
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

export {};
