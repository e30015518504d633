import { registerCommands, runAdmin } from './admin.js';
import { catalogCommands } from './catalog.commands.js';
import '../fulfilment/fulfilment.commands.js';

registerCommands(catalogCommands);

runAdmin(process.argv.slice(2)).then((code) => process.exit(code));
