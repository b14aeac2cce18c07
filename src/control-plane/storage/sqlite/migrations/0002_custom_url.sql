-- A deployment's own address (source_config.custom_url): the router sends requests whose Host is
-- custom_host to the deployment. One deployment per host, among those not being deleted.
ALTER TABLE deployments ADD COLUMN custom_url TEXT;
ALTER TABLE deployments ADD COLUMN custom_host TEXT;
CREATE UNIQUE INDEX deployments_custom_host ON deployments (custom_host) WHERE custom_host IS NOT NULL AND status <> 'AWAITING_DELETE';
