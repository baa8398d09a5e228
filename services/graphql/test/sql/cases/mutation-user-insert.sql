-- A role's insert: its column preset from a session variable and its check.
-- role: user, session: {"x-hasura-user-id":"2"}

-- statement 1 of 3
SELECT set_config('hasura.user', $1, true);
-- parameters: ["{\"x-hasura-user-id\":\"2\",\"x-hasura-role\":\"user\"}"]

-- statement 2 of 3
INSERT INTO "public"."article" AS "_t1" ("title", "rating", "author_id")
VALUES ($1, $2, $3::"int4")
RETURNING "_t1".*, ROW("_t1".*)::text AS "__row", ((EXISTS (
      SELECT 1
      FROM "public"."author" AS "_t2"
      WHERE (("_t2"."id" = "_t1"."author_id")) AND (true) AND ((("_t2"."is_active" = $4)))))) AS "__check";
-- parameters: ["Pointers",5,"2",true]

-- statement 3 of 3
SELECT ((
    SELECT (
      SELECT row_to_json("_t5")
      FROM (
        SELECT "_t3"."title" AS "title", "_t3"."author_id" AS "author_id") AS "_t5")
    FROM unnest($1::text[]) WITH ORDINALITY AS "_t4"("r", "n")
    CROSS JOIN LATERAL CAST("_t4"."r" AS "public"."article") AS "_t3"
    ORDER BY "_t4"."n"
    LIMIT 1))::text AS result;
-- parameters: [["(5,Pointers,,5,f,2)"]]

-- response
-- {
--   "data": {
--     "insert_article_one": {
--       "title": "Pointers",
--       "author_id": 2
--     }
--   }
-- }
