-- An insert with a nested object relationship (parent first) and array relationship (children
-- after), and on_conflict on the parent.
-- role: admin

-- statement 1 of 5
SELECT set_config('hasura.user', $1, true);
-- parameters: ["{\"x-hasura-role\":\"admin\"}"]

-- statement 2 of 5
INSERT INTO "public"."author" AS "_t1" ("name", "email")
VALUES ($1, $2)
ON CONFLICT ON CONSTRAINT "author_email_key"
DO UPDATE SET "name" = EXCLUDED."name"
WHERE (true)
RETURNING "_t1".*, ROW("_t1".*)::text AS "__row", (true) AS "__check";
-- parameters: ["Dora","dora@example.com"]

-- statement 3 of 5
INSERT INTO "public"."article" AS "_t2" ("author_id", "title", "rating")
VALUES ($1, $2, $3)
RETURNING "_t2".*, ROW("_t2".*)::text AS "__row", (true) AS "__check";
-- parameters: [4,"Engines, again",3]

-- statement 4 of 5
INSERT INTO "public"."comment" AS "_t3" ("text", "article_id")
VALUES ($1, $2)
RETURNING "_t3".*, ROW("_t3".*)::text AS "__row", (true) AS "__check";
-- parameters: ["first!",5]

-- statement 5 of 5
SELECT (json_build_object($1::text, $2::int, $3::text, (
      SELECT coalesce(json_agg((
            SELECT row_to_json("_t10")
            FROM (
              SELECT "_t4"."title" AS "title", (
                SELECT (
                  SELECT row_to_json("_t7")
                  FROM (
                    SELECT "_t6"."name" AS "name") AS "_t7")
                FROM "public"."author" AS "_t6"
                WHERE (("_t6"."id" = "_t4"."author_id")) AND (true)
                LIMIT 1) AS "author", (
                SELECT coalesce(json_agg((
                      SELECT row_to_json("_t9")
                      FROM (
                        SELECT "_t8"."text" AS "text") AS "_t9")), '[]'::json)
                FROM (
                  SELECT "_t8".*
                  FROM "public"."comment" AS "_t8"
                  WHERE (("_t8"."article_id" = "_t4"."id")) AND (true) AND (true)) AS "_t8") AS "comments") AS "_t10")
          ORDER BY "_t5"."n"), '[]'::json)
      FROM unnest($4::text[]) WITH ORDINALITY AS "_t5"("r", "n")
      CROSS JOIN LATERAL CAST("_t5"."r" AS "public"."article") AS "_t4")))::text AS result;
-- parameters: ["affected_rows",3,"returning",["(5,\"Engines, again\",,3,f,4)"]]

-- response
-- {
--   "data": {
--     "insert_article": {
--       "affected_rows": 3,
--       "returning": [
--         {
--           "title": "Engines, again",
--           "author": {
--             "name": "Dora"
--           },
--           "comments": [
--             {
--               "text": "first!"
--             }
--           ]
--         }
--       ]
--     }
--   }
-- }
