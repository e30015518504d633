/**
 * Loaded before the service (`--import`, test/reliability/process-faults.test.ts): on SIGUSR2 the process meets the
 * fault named by PROCESS_FAULT, as a bug outside any promise chain would make it: an unhandled rejection, or an
 * exception thrown from a callback with no caller to catch it. The error's text holds a phone number, which the log
 * must not.
 */
const fault = process.env.PROCESS_FAULT;
process.on('SIGUSR2', () => {
  const err = new Error('injected fault for customer +91 98451 23456');
  if (fault === 'rejection') void Promise.reject(err);
  if (fault === 'exception')
    setImmediate(() => {
      throw err;
    });
});
