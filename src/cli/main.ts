import { runAdmin } from './admin.js';

// runAdmin reports its own errors and answers with the exit code; anything it still throws ends the process
// as an uncaught error (exit 1, with the stack).
process.exit(await runAdmin(process.argv.slice(2)));
