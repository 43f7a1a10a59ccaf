-- Paddock store schema, version 4 (SQLite): the kind of a sandbox moves from an environment marker inside the sandbox
-- (PADDOCK_BROWSER=1) to the spec's "template" field, so browser sandboxes made before it stay browser sandboxes.
-- PostgreSQL mirror: spec_json::jsonb with jsonb_set / #- instead of json_set / json_remove.
UPDATE sandboxes
   SET spec_json = json_remove(json_set(spec_json, '$.template', 'browser'), '$.env.PADDOCK_BROWSER')
 WHERE json_extract(spec_json, '$.env.PADDOCK_BROWSER') = '1'
   AND json_extract(spec_json, '$.template') IS NULL;
