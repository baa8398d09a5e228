-- Object and array relationships with their own arguments, aliases and __typename.
-- role: admin

-- statement 1 of 1
SELECT ((
    SELECT coalesce(json_agg((
          SELECT row_to_json("_t6")
          FROM (
            SELECT $1::text AS "__typename", "_t1"."title" AS "title", (
              SELECT (
                SELECT row_to_json("_t3")
                FROM (
                  SELECT "_t2"."name" AS "name") AS "_t3")
              FROM "public"."author" AS "_t2"
              WHERE (("_t2"."id" = "_t1"."author_id")) AND (true)
              LIMIT 1) AS "writer", (
              SELECT coalesce(json_agg((
                    SELECT row_to_json("_t5")
                    FROM (
                      SELECT "_t4"."text" AS "text") AS "_t5")
                  ORDER BY "_t4"."__o0" DESC NULLS FIRST), '[]'::json)
              FROM (
                SELECT "_t4".*, "_t4"."id" AS "__o0"
                FROM "public"."comment" AS "_t4"
                WHERE (("_t4"."article_id" = "_t1"."id")) AND (true) AND ((("_t4"."text" <> $2)))
                ORDER BY "_t4"."id" DESC NULLS FIRST) AS "_t4") AS "comments") AS "_t6")
        ORDER BY "_t1"."__o0" ASC NULLS LAST), '[]'::json)
    FROM (
      SELECT "_t1".*, "_t1"."id" AS "__o0"
      FROM "public"."article" AS "_t1"
      WHERE (true) AND (true)
      ORDER BY "_t1"."id" ASC NULLS LAST
      LIMIT $3) AS "_t1"))::text AS "f0";
-- parameters: ["article","spam",2]

-- response
-- {
--   "data": {
--     "article": [
--       {
--         "__typename": "article",
--         "title": "Notes on engines",
--         "writer": {
--           "name": "Ada"
--         },
--         "comments": [
--           {
--             "text": "agreed"
--           },
--           {
--             "text": "great"
--           }
--         ]
--       },
--       {
--         "__typename": "article",
--         "title": "Draft on loops",
--         "writer": {
--           "name": "Ada"
--         },
--         "comments": []
--       }
--     ]
--   }
-- }
