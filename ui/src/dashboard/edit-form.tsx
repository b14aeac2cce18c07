// Changing the ref, config path or secrets makes a new revision (PATCH); the page then shows it.
import { useState } from "preact/hooks";
import { errorText } from "../api.js";
import { ErrorBox } from "../components/common.js";
import { call, deploymentPath, type Deployment } from "./api.js";
import { SecretsEditor } from "./secrets-editor.js";
import { secretsBody, storedRows, type SecretRow } from "./secret-rows.js";

export function EditForm({ deployment, onSaved }: { deployment: Deployment; onSaved: () => void }) {
  // Starts from what the deployment had when the form opened; polling does not overwrite typing.
  const [ref, setRef] = useState(deployment.source_revision_config.repo_ref ?? "");
  const [configPath, setConfigPath] = useState(deployment.source_revision_config.langgraph_config_path ?? "");
  const [secrets, setSecrets] = useState<SecretRow[]>(() => storedRows(deployment.secrets));
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const [saved, setSaved] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    setSaved(false);
    try {
      const updated = await call<Deployment>("PATCH", deploymentPath(deployment.id), {
        source_revision_config: { repo_ref: ref, langgraph_config_path: configPath },
        secrets: secretsBody(secrets),
      });
      setSecrets(storedRows(updated.secrets));
      setSaved(true);
      onSaved();
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="panel" aria-label="New revision">
      <h3>New revision</h3>
      <form onSubmit={submit}>
        <div class="row">
          <label class="grow">
            Ref
            <input name="edit-ref" value={ref} onInput={(e) => setRef(e.currentTarget.value)} />
          </label>
          <label class="grow">
            Config path
            <input name="edit-config-path" value={configPath} onInput={(e) => setConfigPath(e.currentTarget.value)} />
          </label>
        </div>
        <SecretsEditor rows={secrets} onChange={setSecrets} />
        <ErrorBox error={error} />
        <div class="row">
          <button type="submit" disabled={busy}>
            {busy ? "Saving…" : "Save and deploy"}
          </button>
          {saved && (
            <span class="muted" role="status">
              Saved: a new revision is on its way.
            </span>
          )}
        </div>
      </form>
    </section>
  );
}
