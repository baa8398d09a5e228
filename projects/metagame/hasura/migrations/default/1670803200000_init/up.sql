-- The players/guilds/quests database as MetaGame's release v1.0.2022-12-12 left it
-- (https://github.com/MetaFam/TheGame): 26 tables and the view `me`. Written for this project
-- from the release's published schema (tables, columns in their physical order, defaults,
-- constraint and index names, which Hasura exposes in the `*_constraint` enums); none of
-- MetaGame's migration files is reused.

-- Sets updated_at / last_checked_at on every UPDATE, as Hasura's console-made triggers do.
CREATE FUNCTION public.set_current_timestamp_updated_at() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  NEW.updated_at := now();
  RETURN NEW;
END;
$$;

CREATE FUNCTION public.set_current_timestamp_last_checked_at() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  NEW.last_checked_at := now();
  RETURN NEW;
END;
$$;

-- Lookup tables. The ones Hasura tracks as enum tables hold only their key column.
CREATE TABLE public."AccountType" (
  type text NOT NULL,
  CONSTRAINT "AccountType_pkey" PRIMARY KEY (type)
);

CREATE TABLE public."ColorAspect" (
  mask integer NOT NULL,
  name text NOT NULL,
  description text,
  CONSTRAINT "ColorAspect_pkey" PRIMARY KEY (mask),
  CONSTRAINT "ColorAspect_name_key" UNIQUE (name)
);

-- The table was first called PlayerType: its sequence and constraints keep that name.
CREATE SEQUENCE public."PlayerType_id_seq" AS integer;
CREATE TABLE public."ExplorerType" (
  id integer NOT NULL DEFAULT nextval('public."PlayerType_id_seq"'::regclass),
  title text NOT NULL,
  description text NOT NULL,
  image_url text,
  CONSTRAINT "PlayerType_pkey" PRIMARY KEY (id),
  CONSTRAINT "PlayerType_title_key" UNIQUE (title)
);
ALTER SEQUENCE public."PlayerType_id_seq" OWNED BY public."ExplorerType".id;

CREATE TABLE public."GuildStatus" (
  status text NOT NULL,
  CONSTRAINT "GuildStatus_pkey" PRIMARY KEY (status)
);

CREATE TABLE public."GuildType" (
  name text NOT NULL,
  CONSTRAINT "GuildType_pkey" PRIMARY KEY (name)
);

CREATE TABLE public."PlayerRank" (
  rank text NOT NULL,
  CONSTRAINT "Player_Rank_pkey" PRIMARY KEY (rank)
);

CREATE TABLE public."PlayerRole" (
  role text NOT NULL,
  label text NOT NULL,
  description text,
  basic boolean DEFAULT true,
  CONSTRAINT "PlayerRole_pkey" PRIMARY KEY (role)
);

CREATE TABLE public."QuestCompletionStatus" (
  status text NOT NULL,
  CONSTRAINT "QuestCompletionStatus_pkey" PRIMARY KEY (status)
);

CREATE TABLE public."QuestRepetition" (
  repetition text NOT NULL,
  CONSTRAINT "QuestRepetition_pkey" PRIMARY KEY (repetition)
);

CREATE TABLE public."QuestStatus" (
  status text NOT NULL,
  CONSTRAINT "QuestStatus_pkey" PRIMARY KEY (status)
);

CREATE TABLE public."SkillCategory" (
  name text NOT NULL,
  CONSTRAINT "SkillCategory_pkey" PRIMARY KEY (name)
);

-- Players. Addresses are stored lower-case; the backend lower-cases before every lookup.
CREATE TABLE public.player (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  ethereum_address text NOT NULL,
  total_xp numeric DEFAULT 0,
  role text,
  rank text,
  created_at timestamptz DEFAULT now(),
  updated_at timestamptz DEFAULT now(),
  discord_id text,
  season_xp numeric NOT NULL DEFAULT 0,
  profile_layout text,
  dashboard_layout text,
  CONSTRAINT "Player_pkey" PRIMARY KEY (id),
  CONSTRAINT "Player_ethereum_address_unique_key" UNIQUE (ethereum_address),
  CONSTRAINT player_discord_id_key UNIQUE (discord_id),
  CONSTRAINT "Player_rank_fkey" FOREIGN KEY (rank) REFERENCES public."PlayerRank" (rank)
    ON UPDATE RESTRICT ON DELETE RESTRICT,
  CONSTRAINT ethereum_address_is_valid CHECK (ethereum_address ~ '^0x([a-z0-9-]{40})$')
);
CREATE TRIGGER "set_public_Player_updated_at" BEFORE UPDATE ON public.player
  FOR EACH ROW EXECUTE FUNCTION public.set_current_timestamp_updated_at();

CREATE TABLE public.profile (
  name text,
  description text,
  location text,
  country_code text,
  emoji text,
  profile_image_url text,
  banner_image_url text,
  website text,
  gender text,
  player_id uuid NOT NULL,
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  last_checked_at timestamptz DEFAULT now(),
  pronouns text,
  background_image_url text,
  username text,
  available_hours integer,
  time_zone text,
  color_mask integer,
  explorer_type_title text,
  CONSTRAINT profile_cache_pkey PRIMARY KEY (id),
  CONSTRAINT profile_player_id_key UNIQUE (player_id),
  CONSTRAINT profile_username_key UNIQUE (username),
  CONSTRAINT profile_color_mask_fkey FOREIGN KEY (color_mask) REFERENCES public."ColorAspect" (mask)
    ON UPDATE RESTRICT ON DELETE RESTRICT,
  CONSTRAINT profile_explorer_type_title_fkey FOREIGN KEY (explorer_type_title)
    REFERENCES public."ExplorerType" (title) ON UPDATE CASCADE ON DELETE RESTRICT,
  CONSTRAINT profile_player_id_fkey FOREIGN KEY (player_id) REFERENCES public.player (id)
    ON UPDATE CASCADE ON DELETE CASCADE
);
-- The release also has a unique constraint on id beside the primary key (Hasura lists it in
-- profile_constraint). CREATE TABLE would drop it as a duplicate of the primary key's index;
-- ALTER TABLE keeps it.
ALTER TABLE public.profile ADD CONSTRAINT profile_id_key UNIQUE (id);
CREATE UNIQUE INDEX username_insensitive_unique_idx ON public.profile (lower(username));
CREATE TRIGGER set_public_profile_cache_last_checked_at BEFORE UPDATE ON public.profile
  FOR EACH ROW EXECUTE FUNCTION public.set_current_timestamp_last_checked_at();

-- R-2022 has no primary key here: Hasura generates no player_account_by_pk.
CREATE TABLE public.player_account (
  player_id uuid NOT NULL,
  identifier text NOT NULL,
  type text NOT NULL,
  CONSTRAINT "Account_identifier_type_key" UNIQUE (identifier, type),
  CONSTRAINT "Account_type_fkey" FOREIGN KEY (type) REFERENCES public."AccountType" (type)
    ON UPDATE RESTRICT ON DELETE RESTRICT,
  CONSTRAINT player_account_player_id_fkey FOREIGN KEY (player_id) REFERENCES public.player (id)
);

CREATE TABLE public.player_role (
  player_id uuid NOT NULL,
  role text NOT NULL,
  rank integer NOT NULL,
  CONSTRAINT player_role_pkey PRIMARY KEY (player_id, role),
  CONSTRAINT player_role_player_id_fkey FOREIGN KEY (player_id) REFERENCES public.player (id)
    ON UPDATE RESTRICT ON DELETE CASCADE,
  CONSTRAINT player_role_role_fkey FOREIGN KEY (role) REFERENCES public."PlayerRole" (role)
    ON UPDATE RESTRICT ON DELETE RESTRICT
);

CREATE TABLE public.skill (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  name text NOT NULL,
  category text NOT NULL,
  CONSTRAINT "Skill_pkey" PRIMARY KEY (id),
  CONSTRAINT "Skill_category_fkey" FOREIGN KEY (category) REFERENCES public."SkillCategory" (name)
    ON UPDATE RESTRICT ON DELETE RESTRICT
);

CREATE TABLE public.player_skill (
  player_id uuid NOT NULL,
  skill_id uuid NOT NULL,
  rank integer,
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  CONSTRAINT player_skill_pkey PRIMARY KEY (id),
  CONSTRAINT player_skill_player_id_skill_id_key UNIQUE (player_id, skill_id),
  CONSTRAINT "Player_Skill_skill_id_fkey" FOREIGN KEY (skill_id) REFERENCES public.skill (id),
  CONSTRAINT player_skill_player_id_fkey FOREIGN KEY (player_id) REFERENCES public.player (id)
    ON DELETE CASCADE
);

-- Guilds, their Discord metadata, members and DAOs.
CREATE TABLE public.guild (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  type text NOT NULL,
  name text NOT NULL,
  logo text,
  description text,
  join_button_url text,
  website_url text,
  guildname text NOT NULL,
  discord_id text,
  status text NOT NULL DEFAULT 'ACTIVE',
  membership_through_discord boolean NOT NULL DEFAULT false,
  show_discord_announcements boolean NOT NULL DEFAULT true,
  profile_layout text,
  sort_position integer,
  discord_invite_url text,
  twitter_url text,
  github_url text,
  CONSTRAINT "Guild_pkey" PRIMARY KEY (id),
  CONSTRAINT "Guild_guildname_key" UNIQUE (guildname),
  CONSTRAINT guild_discord_id_key UNIQUE (discord_id),
  CONSTRAINT guild_sort_position_key UNIQUE (sort_position),
  CONSTRAINT "Guild_type_fkey" FOREIGN KEY (type) REFERENCES public."GuildType" (name),
  CONSTRAINT guild_status_fkey FOREIGN KEY (status) REFERENCES public."GuildStatus" (status)
    ON UPDATE RESTRICT ON DELETE RESTRICT
);

CREATE TABLE public.guild_metadata (
  guild_id uuid NOT NULL,
  creator_id uuid,
  discord_id text NOT NULL,
  discord_metadata jsonb,
  CONSTRAINT guild_metadata_pkey PRIMARY KEY (guild_id),
  CONSTRAINT guild_metadata_creator_id_fkey FOREIGN KEY (creator_id) REFERENCES public.player (id)
    ON UPDATE RESTRICT ON DELETE RESTRICT,
  CONSTRAINT guild_metadata_guild_id_fkey FOREIGN KEY (guild_id) REFERENCES public.guild (id)
    ON UPDATE RESTRICT ON DELETE RESTRICT
);

CREATE TABLE public.guild_player (
  guild_id uuid NOT NULL,
  player_id uuid NOT NULL,
  CONSTRAINT guild_player_pkey PRIMARY KEY (guild_id, player_id),
  CONSTRAINT guild_player_guild_id_fkey FOREIGN KEY (guild_id) REFERENCES public.guild (id)
    ON UPDATE RESTRICT ON DELETE RESTRICT,
  CONSTRAINT guild_player_player_id_fkey FOREIGN KEY (player_id) REFERENCES public.player (id)
    ON UPDATE RESTRICT ON DELETE RESTRICT
);

CREATE TABLE public.dao (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  contract_address text NOT NULL,
  network text NOT NULL DEFAULT 'mainnet',
  label text,
  url text,
  guild_id uuid,
  CONSTRAINT dao_pkey PRIMARY KEY (id),
  CONSTRAINT dao_contract_address_network_key UNIQUE (contract_address, network),
  CONSTRAINT dao_guild_id_fkey FOREIGN KEY (guild_id) REFERENCES public.guild (id) ON DELETE CASCADE,
  CONSTRAINT contract_address_is_valid CHECK (contract_address ~ '^0x([a-z0-9-]{40})$')
);

CREATE TABLE public.dao_player (
  dao_id uuid NOT NULL,
  player_id uuid NOT NULL,
  visible boolean,
  CONSTRAINT dao_player_pkey PRIMARY KEY (dao_id, player_id),
  CONSTRAINT dao_player_dao_id_fkey FOREIGN KEY (dao_id) REFERENCES public.dao (id)
    ON UPDATE RESTRICT ON DELETE CASCADE,
  CONSTRAINT dao_player_player_id_fkey FOREIGN KEY (player_id) REFERENCES public.player (id)
    ON UPDATE RESTRICT ON DELETE CASCADE
);

-- Quests and their completions. cooldown is in seconds.
CREATE TABLE public.quest (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  created_at timestamptz NOT NULL DEFAULT now(),
  guild_id uuid NOT NULL,
  created_by_player_id uuid NOT NULL,
  title text NOT NULL,
  description text,
  external_link text,
  cooldown integer,
  status text NOT NULL DEFAULT 'OPEN',
  repetition text NOT NULL DEFAULT 'UNIQUE',
  image text,
  CONSTRAINT quest_pkey PRIMARY KEY (id),
  CONSTRAINT quest_created_by_player_id_fkey FOREIGN KEY (created_by_player_id)
    REFERENCES public.player (id) ON UPDATE RESTRICT ON DELETE RESTRICT,
  CONSTRAINT quest_guild_id_fkey FOREIGN KEY (guild_id) REFERENCES public.guild (id)
    ON UPDATE RESTRICT ON DELETE RESTRICT,
  CONSTRAINT quest_repetition_fkey FOREIGN KEY (repetition) REFERENCES public."QuestRepetition" (repetition)
    ON UPDATE RESTRICT ON DELETE RESTRICT,
  CONSTRAINT quest_status_fkey FOREIGN KEY (status) REFERENCES public."QuestStatus" (status)
    ON UPDATE RESTRICT ON DELETE RESTRICT
);

CREATE TABLE public.quest_completion (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  quest_id uuid NOT NULL,
  completed_by_player_id uuid NOT NULL,
  submitted_at timestamptz NOT NULL DEFAULT now(),
  submission_text text,
  submission_link text,
  status text NOT NULL DEFAULT 'PENDING',
  CONSTRAINT quest_completion_pkey PRIMARY KEY (id),
  CONSTRAINT quest_completion_completed_by_player_id_fkey FOREIGN KEY (completed_by_player_id)
    REFERENCES public.player (id) ON UPDATE RESTRICT ON DELETE RESTRICT,
  CONSTRAINT quest_completion_quest_id_fkey FOREIGN KEY (quest_id) REFERENCES public.quest (id)
    ON UPDATE RESTRICT ON DELETE RESTRICT,
  CONSTRAINT quest_completion_status_fkey FOREIGN KEY (status)
    REFERENCES public."QuestCompletionStatus" (status) ON UPDATE RESTRICT ON DELETE RESTRICT
);

CREATE TABLE public.quest_role (
  quest_id uuid NOT NULL,
  role text NOT NULL,
  rank integer,
  CONSTRAINT quest_role_pkey PRIMARY KEY (quest_id, role),
  CONSTRAINT quest_role_quest_id_fkey FOREIGN KEY (quest_id) REFERENCES public.quest (id)
    ON UPDATE RESTRICT ON DELETE CASCADE,
  CONSTRAINT quest_role_role_fkey FOREIGN KEY (role) REFERENCES public."PlayerRole" (role)
    ON UPDATE RESTRICT ON DELETE RESTRICT
);

CREATE TABLE public.quest_skill (
  quest_id uuid NOT NULL,
  skill_id uuid NOT NULL,
  CONSTRAINT quest_skill_pkey PRIMARY KEY (quest_id, skill_id),
  CONSTRAINT quest_skill_quest_id_fkey FOREIGN KEY (quest_id) REFERENCES public.quest (id)
    ON UPDATE RESTRICT ON DELETE RESTRICT,
  CONSTRAINT quest_skill_skill_id_fkey FOREIGN KEY (skill_id) REFERENCES public.skill (id)
    ON UPDATE RESTRICT ON DELETE RESTRICT
);

-- The signed-in player's own row: Hasura's permission restricts it to X-Hasura-User-Id.
CREATE VIEW public.me AS
  SELECT player.id, profile.username, player.ethereum_address
  FROM public.player
  JOIN public.profile ON player.id = profile.player_id;
