// The page frame: navigation, the connection's auth header, and the page for the current path.
import { useMemo, useState } from "preact/hooks";
import { loadAuthHeader, makeClient, saveAuthHeader, type AuthHeader } from "./api.js";
import { Link } from "./components/common.js";
import { AssistantsPage } from "./pages/assistants.js";
import { MetricsPage } from "./pages/metrics.js";
import { ThreadPage } from "./pages/thread.js";
import { ThreadsPage } from "./pages/threads.js";
import { useRoute } from "./router.js";

export function App() {
  const route = useRoute();
  const [auth, setAuth] = useState<AuthHeader | undefined>(loadAuthHeader);
  // A new client when the header changes, so every page reloads with it.
  const client = useMemo(() => makeClient(), [auth]);

  return (
    <>
      <header class="top">
        <h1>
          <Link to="">Gantry</Link>
        </h1>
        <nav>
          <Link to="" class={route.page === "assistants" ? "current" : ""}>
            Assistants
          </Link>
          <Link to="threads" class={route.page === "threads" || route.page === "thread" ? "current" : ""}>
            Threads
          </Link>
          <Link to="metrics" class={route.page === "metrics" ? "current" : ""}>
            Metrics
          </Link>
        </nav>
        <AuthSettings
          auth={auth}
          onChange={(next) => {
            saveAuthHeader(next);
            setAuth(next);
          }}
        />
      </header>
      <main>
        {route.page === "assistants" && <AssistantsPage client={client} assistantId={route.assistantId} />}
        {route.page === "threads" && <ThreadsPage client={client} />}
        {route.page === "metrics" && <MetricsPage auth={auth} />}
        {route.page === "thread" && <ThreadPage key={route.threadId} client={client} threadId={route.threadId} assistantId={route.assistantId} />}
      </main>
    </>
  );
}

// When the server has custom auth, the API wants a header (often Authorization or x-api-key);
// it is sent with every call from this tab.
function AuthSettings({ auth, onChange }: { auth: AuthHeader | undefined; onChange: (next: AuthHeader | undefined) => void }) {
  const [name, setName] = useState(auth?.name ?? "Authorization");
  const [value, setValue] = useState(auth?.value ?? "");
  return (
    <details class="auth">
      <summary>{auth ? `Auth: ${auth.name}` : "Auth header"}</summary>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          onChange(value ? { name, value } : undefined);
        }}
      >
        <label>
          Header
          <input name="auth-name" value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <label>
          Value
          <input name="auth-value" type="password" autoComplete="off" value={value} onInput={(e) => setValue(e.currentTarget.value)} />
        </label>
        <button type="submit">Save for this tab</button>
      </form>
    </details>
  );
}
