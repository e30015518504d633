import type { CommandGroup } from './command.js';
import { companyCommands } from './commands/companies.js';
import { keyCommands } from './commands/keys.js';
import { catalogCommands } from './commands/catalog.js';
import { orderCommands } from './commands/orders.js';
import { billingCommands } from './commands/billing.js';
import { courierCommands } from './commands/couriers.js';
import { paymentCommands } from './commands/payments.js';
import { dbCommands } from './commands/db.js';
import { webhookCommands } from './commands/webhooks.js';
import { checkoutCommands } from './commands/checkout.js';
import { ucpCommands } from './commands/ucp.js';
import { whatsappCommands } from './commands/whatsapp.js';
import { codCommands } from './commands/cod.js';
import { customerCommands } from './commands/customers.js';
import { auditCommands } from './commands/audit.js';
import { privacyCommands } from './commands/privacy.js';
import { consentCommands } from './commands/consent.js';

/** Every admin command, group by group, in the order --help lists them. A new group is one line here. */
export const COMMANDS: CommandGroup = {
  ...companyCommands,
  ...keyCommands,
  ...catalogCommands,
  ...orderCommands,
  ...billingCommands,
  ...courierCommands,
  ...paymentCommands,
  ...webhookCommands,
  ...checkoutCommands,
  ...ucpCommands,
  ...whatsappCommands,
  ...codCommands,
  ...customerCommands,
  ...auditCommands,
  ...privacyCommands,
  ...consentCommands,
  ...dbCommands,
};
