// The form that creates a deployment (and its first revision), then opens its page.
import { useState } from "preact/hooks";
import { errorText } from "../api.js";
import { ErrorBox } from "../components/common.js";
import { navigate } from "../router.js";
import { call, type Deployment } from "./api.js";
import { deploymentPage } from "./routes.js";
import { SecretsEditor } from "./secrets-editor.js";
import { secretsBody, type SecretRow } from "./secret-rows.js";

export function CreatePage() {
  const [name, setName] = useState("");
  const [repoUrl, setRepoUrl] = useState("");
  const [ref, setRef] = useState("main");
  const [configPath, setConfigPath] = useState("langgraph.json");
  const [type, setType] = useState("dev");
  const [buildOnPush, setBuildOnPush] = useState(false);
  const [secrets, setSecrets] = useState<SecretRow[]>([]);
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const created = await call<Deployment>("POST", "/v2/deployments", {
        name,
        source: "github",
        source_config: { repo_url: repoUrl, deployment_type: type, build_on_push: buildOnPush },
        source_revision_config: { repo_ref: ref, langgraph_config_path: configPath },
        secrets: secretsBody(secrets),
      });
      navigate(deploymentPage(created.id));
    } catch (err) {
      setError(errorText(err));
      setBusy(false);
    }
  };

  return (
    <section class="panel narrow">
      <h2>New deployment</h2>
      <form onSubmit={submit}>
        <label>
          Name
          <input name="name" required value={name} onInput={(e) => setName(e.currentTarget.value)} placeholder="my-agent" />
        </label>
        <label>
          Repository URL
          <input name="repo-url" required value={repoUrl} onInput={(e) => setRepoUrl(e.currentTarget.value)} placeholder="https://github.com/me/agent.git" />
        </label>
        <div class="row">
          <label class="grow">
            Ref
            <input name="ref" value={ref} onInput={(e) => setRef(e.currentTarget.value)} />
          </label>
          <label class="grow">
            Config path
            <input name="config-path" value={configPath} onInput={(e) => setConfigPath(e.currentTarget.value)} />
          </label>
          <label class="grow">
            Deployment type
            <select name="deployment-type" value={type} onChange={(e) => setType(e.currentTarget.value)}>
              <option value="dev">dev</option>
              <option value="prod">prod</option>
              <option value="dev_free">dev_free</option>
            </select>
          </label>
        </div>
        <label class="check">
          <input type="checkbox" checked={buildOnPush} onChange={(e) => setBuildOnPush(e.currentTarget.checked)} />
          Build on push (check the ref for new commits)
        </label>
        <SecretsEditor rows={secrets} onChange={setSecrets} />
        <ErrorBox error={error} />
        <button type="submit" disabled={busy}>
          {busy ? "Creating…" : "Create deployment"}
        </button>
      </form>
    </section>
  );
}
