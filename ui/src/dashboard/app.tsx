// The dashboard's frame: navigation, the API key (entered once, kept for the tab), and the page for
// the current path. A new key remounts the page, so everything loads again with it.
import { useState } from "preact/hooks";
import { Link } from "../components/common.js";
import { useLocationRoute } from "../router.js";
import { loadKey, saveKey } from "./api.js";
import { CreatePage } from "./create-page.js";
import { DeploymentPage } from "./deployment-page.js";
import { DeploymentsPage } from "./deployments-page.js";
import { parseDashboardRoute } from "./routes.js";

export function DashboardApp() {
  const route = useLocationRoute(parseDashboardRoute);
  const [key, setKey] = useState<string | undefined>(loadKey);

  return (
    <>
      <header class="top">
        <h1>
          <Link to="">Gantry</Link>
        </h1>
        <nav>
          <Link to="" class={route.page === "deployments" || route.page === "deployment" ? "current" : ""}>
            Deployments
          </Link>
          <Link to="new" class={route.page === "new" ? "current" : ""}>
            New deployment
          </Link>
        </nav>
        <KeySettings
          saved={key !== undefined}
          onChange={(next) => {
            saveKey(next);
            setKey(next);
          }}
        />
      </header>
      <main key={key ?? ""}>
        {route.page === "deployments" && <DeploymentsPage />}
        {route.page === "new" && <CreatePage />}
        {route.page === "deployment" && <DeploymentPage key={route.deploymentId} deploymentId={route.deploymentId} revisionId={route.revisionId} />}
      </main>
    </>
  );
}

// Open until a key is saved: without one every call but a dev-mode control plane's answers 401.
function KeySettings({ saved, onChange }: { saved: boolean; onChange: (next: string | undefined) => void }) {
  const [value, setValue] = useState("");
  return (
    <details class="auth" open={!saved}>
      <summary>{saved ? "API key saved" : "API key"}</summary>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          onChange(value || undefined);
          setValue("");
          (e.currentTarget.closest("details") as HTMLDetailsElement).open = false;
        }}
      >
        <label>
          API key (X-Api-Key)
          <input name="api-key" type="password" autoComplete="off" value={value} onInput={(e) => setValue(e.currentTarget.value)} />
        </label>
        <button type="submit">{saved && !value ? "Forget the key" : "Save for this tab"}</button>
      </form>
    </details>
  );
}
