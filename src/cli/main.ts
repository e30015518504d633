import { runAdmin } from './admin.js';
import '../fulfilment/fulfilment.commands.js';

runAdmin(process.argv.slice(2)).then((code) => process.exit(code));
