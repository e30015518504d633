import { runAdmin } from './admin.js';

runAdmin(process.argv.slice(2)).then((code) => process.exit(code));
