// Secrets as name/value rows. Values are write-only: the API returns stored ones as `********`, shown
// here as an empty field that keeps the stored value unless something is typed into it.
import { MASK, type SecretRow } from "./secret-rows.js";

export function SecretsEditor({ rows, onChange }: { rows: SecretRow[]; onChange: (rows: SecretRow[]) => void }) {
  const update = (index: number, change: Partial<SecretRow>) => onChange(rows.map((row, i) => (i === index ? { ...row, ...change } : row)));
  return (
    <fieldset class="secrets">
      <legend>Secrets</legend>
      {rows.length === 0 && <p class="muted small">None. Each secret is an environment variable of the deployed server.</p>}
      {rows.map((row, index) => (
        <div class="secret-row" key={index}>
          <label>
            Secret name
            <input value={row.name} onInput={(e) => update(index, { name: e.currentTarget.value })} placeholder="OPENAI_API_KEY" />
          </label>
          <label>
            Secret value
            <input
              type="password"
              autoComplete="off"
              value={row.value === MASK ? "" : row.value}
              placeholder={row.stored ? "(stored; type to replace)" : ""}
              onInput={(e) => update(index, { value: e.currentTarget.value || (row.stored ? MASK : "") })}
            />
          </label>
          <button type="button" class="secondary" aria-label={`Remove secret ${row.name}`} onClick={() => onChange(rows.filter((_, i) => i !== index))}>
            Remove
          </button>
        </div>
      ))}
      <button type="button" class="secondary" onClick={() => onChange([...rows, { name: "", value: "", stored: false }])}>
        Add secret
      </button>
    </fieldset>
  );
}
