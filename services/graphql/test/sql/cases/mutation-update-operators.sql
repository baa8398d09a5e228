-- Updates with _set, _inc and the jsonb operators.
-- role: admin

-- statement 1 of 7
SELECT set_config('hasura.user', $1, true);
-- parameters: ["{\"x-hasura-role\":\"admin\"}"]

-- statement 2 of 7
UPDATE "public"."article" AS "_t1"
SET "published" = $1, "rating" = "_t1"."rating" + $2
WHERE ((("_t1"."author_id" = $3)))
RETURNING ROW("_t1".*)::text AS "__row", (true) AS "__check";
-- parameters: [true,1,1]

-- statement 3 of 7
SELECT (json_build_object($1::text, $2::int, $3::text, (
      SELECT coalesce(json_agg((
            SELECT row_to_json("_t4")
            FROM (
              SELECT "_t2"."id" AS "id", "_t2"."rating" AS "rating", "_t2"."published" AS "published") AS "_t4")
          ORDER BY "_t3"."n"), '[]'::json)
      FROM unnest($4::text[]) WITH ORDINALITY AS "_t3"("r", "n")
      CROSS JOIN LATERAL CAST("_t3"."r" AS "public"."article") AS "_t2")))::text AS result;
-- parameters: ["affected_rows",2,"returning",["(1,\"Notes on engines\",first,6,t,1)","(2,\"Draft on loops\",second,,t,1)"]]

-- statement 4 of 7
UPDATE "public"."author" AS "_t5"
SET "profile" = "_t5"."profile" || $1::jsonb
WHERE (("_t5"."id" = $2))
RETURNING ROW("_t5".*)::text AS "__row", (true) AS "__check";
-- parameters: ["{\"seen\":true}",1]

-- statement 5 of 7
SELECT ((
    SELECT (
      SELECT row_to_json("_t8")
      FROM (
        SELECT "_t6"."profile" AS "profile") AS "_t8")
    FROM unnest($1::text[]) WITH ORDINALITY AS "_t7"("r", "n")
    CROSS JOIN LATERAL CAST("_t7"."r" AS "public"."author") AS "_t6"
    ORDER BY "_t7"."n"
    LIMIT 1))::text AS result;
-- parameters: [["(1,Ada,ada@example.com,t,\"{\"\"lang\"\": \"\"en\"\", \"\"seen\"\": true, \"\"links\"\": {\"\"site\"\": \"\"ada.dev\"\"}}\",\"{math,engines}\",\"2024-01-01 00:00:00+00\")"]]

-- statement 6 of 7
UPDATE "public"."author" AS "_t9"
SET "profile" = "_t9"."profile" - $1::text
WHERE ((("_t9"."id" = $2)))
RETURNING ROW("_t9".*)::text AS "__row", (true) AS "__check";
-- parameters: ["lang",2]

-- statement 7 of 7
SELECT (json_build_object($1::text, (
      SELECT coalesce(json_agg((
            SELECT row_to_json("_t12")
            FROM (
              SELECT "_t10"."profile" AS "profile") AS "_t12")
          ORDER BY "_t11"."n"), '[]'::json)
      FROM unnest($2::text[]) WITH ORDINALITY AS "_t11"("r", "n")
      CROSS JOIN LATERAL CAST("_t11"."r" AS "public"."author") AS "_t10")))::text AS result;
-- parameters: ["returning",["(2,Brian,,t,{},{c},\"2024-01-01 00:00:00+00\")"]]

-- response
-- {
--   "data": {
--     "update_article": {
--       "affected_rows": 2,
--       "returning": [
--         {
--           "id": 1,
--           "rating": 6,
--           "published": true
--         },
--         {
--           "id": 2,
--           "rating": null,
--           "published": true
--         }
--       ]
--     },
--     "update_author_by_pk": {
--       "profile": {
--         "lang": "en",
--         "seen": true,
--         "links": {
--           "site": "ada.dev"
--         }
--       }
--     },
--     "update_author": {
--       "returning": [
--         {
--           "profile": {}
--         }
--       ]
--     }
--   }
-- }
