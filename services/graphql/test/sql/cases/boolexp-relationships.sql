-- _or, _not, a filter through an object relationship and one through an array relationship.
-- role: admin

-- statement 1 of 1
SELECT ((
    SELECT coalesce(json_agg((
          SELECT row_to_json("_t4")
          FROM (
            SELECT "_t1"."id" AS "id") AS "_t4")
        ORDER BY "_t1"."__o0" ASC NULLS LAST), '[]'::json)
    FROM (
      SELECT "_t1".*, "_t1"."id" AS "__o0"
      FROM "public"."article" AS "_t1"
      WHERE (true) AND (((((EXISTS (
                  SELECT 1
                  FROM "public"."author" AS "_t2"
                  WHERE (("_t2"."id" = "_t1"."author_id")) AND (true) AND ((("_t2"."name" = $1)))))) OR ((EXISTS (
                  SELECT 1
                  FROM "public"."comment" AS "_t3"
                  WHERE (("_t3"."article_id" = "_t1"."id")) AND (true) AND ((("_t3"."text" = $2)))))))) AND (NOT ((("_t1"."rating" < $3)))))
      ORDER BY "_t1"."id" ASC NULLS LAST) AS "_t1"))::text AS "f0";
-- parameters: ["Brian","agreed",3]

-- response
-- {
--   "data": {
--     "article": [
--       {
--         "id": 1
--       },
--       {
--         "id": 3
--       }
--     ]
--   }
-- }
