-- update_many: each update in turn, in one transaction.
-- role: admin

-- statement 1 of 5
SELECT set_config('hasura.user', $1, true);
-- parameters: ["{\"x-hasura-role\":\"admin\"}"]

-- statement 2 of 5
UPDATE "public"."article" AS "_t1"
SET "title" = $1
WHERE ((("_t1"."id" = $2)))
RETURNING ROW("_t1".*)::text AS "__row", (true) AS "__check";
-- parameters: ["One",1]

-- statement 3 of 5
SELECT (json_build_object($1::text, $2::int))::text AS result;
-- parameters: ["affected_rows",1]

-- statement 4 of 5
UPDATE "public"."article" AS "_t2"
SET "rating" = $1
WHERE ((("_t2"."rating" IS NULL)))
RETURNING ROW("_t2".*)::text AS "__row", (true) AS "__check";
-- parameters: [0]

-- statement 5 of 5
SELECT (json_build_object($1::text, $2::int))::text AS result;
-- parameters: ["affected_rows",1]

-- response
-- {
--   "data": {
--     "update_article_many": [
--       {
--         "affected_rows": 1
--       },
--       {
--         "affected_rows": 1
--       }
--     ]
--   }
-- }
