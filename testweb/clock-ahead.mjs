// A clock ahead of the real one, for a child process a test starts (`node --import` this file):
// the process lives as if CLOCK_AHEAD_MS milliseconds later — pages it fetched a moment ago are due
// again — without the test waiting for that time to pass. Dates made from a given time are left
// alone; only "now" moves (Date.now(), new Date()). Timers and performance.now() keep real time.
const ahead = Number(process.env.CLOCK_AHEAD_MS ?? 0);
if (ahead) {
  const RealDate = Date;
  globalThis.Date = class extends RealDate {
    constructor(...args) {
      if (args.length) super(...args);
      else super(RealDate.now() + ahead);
    }
    static now() {
      return RealDate.now() + ahead;
    }
  };
}
