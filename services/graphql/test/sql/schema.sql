-- The schema every SQL snapshot case runs against (tables, a tracked function, a computed field).
CREATE TABLE author (
  id serial PRIMARY KEY,
  name text NOT NULL,
  email text UNIQUE,
  is_active boolean NOT NULL DEFAULT true,
  profile jsonb,
  tags text[],
  created_at timestamptz NOT NULL DEFAULT '2024-01-01T00:00:00Z'
);
CREATE TABLE article (
  id serial PRIMARY KEY,
  title text NOT NULL,
  body text,
  rating int,
  published boolean NOT NULL DEFAULT false,
  author_id int NOT NULL REFERENCES author(id)
);
CREATE TABLE comment (
  id serial PRIMARY KEY,
  article_id int NOT NULL REFERENCES article(id) ON DELETE CASCADE,
  author_id int REFERENCES author(id),
  text text NOT NULL
);
CREATE FUNCTION search_articles(search text) RETURNS SETOF article AS $$
  SELECT * FROM article WHERE title ILIKE '%' || search || '%'
$$ LANGUAGE sql STABLE;
CREATE FUNCTION author_label(a author) RETURNS text AS $$
  SELECT a.name || ' <' || coalesce(a.email, '-') || '>'
$$ LANGUAGE sql STABLE;
