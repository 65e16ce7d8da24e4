// The back office's pages: each a permission and a render(container, argument) function.

import { auditPage } from "./audit.js";

export const PAGES = {
  audit: { title: "admin.nav.audit", permission: "audit.view", render: auditPage },
};
