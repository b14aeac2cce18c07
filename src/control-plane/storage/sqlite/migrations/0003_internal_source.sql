-- internal_source revisions (the official CLI's `deploy --remote`) build an uploaded archive: the
-- object path upload-url issued. NULL for github revisions.
ALTER TABLE revisions ADD COLUMN source_tarball_path TEXT;
