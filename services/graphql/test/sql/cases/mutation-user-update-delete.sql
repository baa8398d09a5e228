-- A role's update (its filter and check) and delete (its filter).
-- role: user, session: {"x-hasura-user-id":"1"}

-- statement 1 of 4
SELECT set_config('hasura.user', $1, true);
-- parameters: ["{\"x-hasura-user-id\":\"1\",\"x-hasura-role\":\"user\"}"]

-- statement 2 of 4
UPDATE "public"."article" AS "_t1"
SET "rating" = $1
WHERE ((("_t1"."author_id" = $2::"int4"))) AND (1 = 1)
RETURNING ROW("_t1".*)::text AS "__row", ((("_t1"."rating" >= $3))) AS "__check";
-- parameters: [1,"1",0]

-- statement 3 of 4
SELECT (json_build_object($1::text, $2::int))::text AS result;
-- parameters: ["affected_rows",2]

-- statement 4 of 4
WITH "_t3" AS (
  DELETE FROM "public"."article" AS "_t2"
  WHERE ((("_t2"."author_id" = $1::"int4"))) AND ((("_t2"."published" = $2)))
  RETURNING "_t2".*)
SELECT json_build_object($3::text, (
    SELECT count(*)
    FROM "_t3")::int, $4::text, (
    SELECT coalesce(json_agg((
          SELECT row_to_json("_t5")
          FROM (
            SELECT "_t4"."title" AS "title") AS "_t5")), '[]'::json)
    FROM "_t3" AS "_t4"))::text AS result;
-- parameters: ["1",false,"affected_rows","returning"]

-- response
-- {
--   "data": {
--     "update_article": {
--       "affected_rows": 2
--     },
--     "delete_article": {
--       "affected_rows": 1,
--       "returning": [
--         {
--           "title": "Draft on loops"
--         }
--       ]
--     }
--   }
-- }
