-- Paddock store schema, version 4 (PostgreSQL): the kind of a sandbox moves from an environment marker inside the
-- sandbox (PADDOCK_BROWSER=1) to the spec's "template" field, so browser sandboxes made before it stay browser sandboxes.
UPDATE sandboxes
   SET spec_json = (jsonb_set(spec_json::jsonb, '{template}', '"browser"') #- '{env,PADDOCK_BROWSER}')::text
 WHERE spec_json::jsonb #>> '{env,PADDOCK_BROWSER}' = '1'
   AND spec_json::jsonb -> 'template' IS NULL;
