// The dashboard's pages, as paths under its base (`/`): the deployments, the create form, and one
// deployment (with the revision whose logs are open in `?revision=`). The control plane answers
// each of these paths with the dashboard (src/control-plane/api/dashboard.ts).
import { pathSegments } from "../router.js";

export type DashboardRoute = { page: "deployments" } | { page: "new" } | { page: "deployment"; deploymentId: string; revisionId?: string };

export function parseDashboardRoute(location: Location): DashboardRoute {
  const [first, second] = pathSegments(location);
  if (first === "new") return { page: "new" };
  const revisionId = new URLSearchParams(location.search).get("revision") ?? undefined;
  if (first === "view" && second) return { page: "deployment", deploymentId: second, ...(revisionId ? { revisionId } : {}) };
  return { page: "deployments" };
}

export const deploymentPage = (id: string, revisionId?: string) =>
  `view/${encodeURIComponent(id)}${revisionId ? `?revision=${encodeURIComponent(revisionId)}` : ""}`;
