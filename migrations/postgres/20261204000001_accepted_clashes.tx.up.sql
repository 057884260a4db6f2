-- Clashes a business brought with it (an import of data another system let
-- through), by their identities: they are reported as pre-existing and
-- never block a write; only a new clash does.
CREATE TABLE accepted_clashes (
    business_id  bigint NOT NULL REFERENCES businesses (id) ON DELETE CASCADE,
    key          TEXT NOT NULL,
    PRIMARY KEY (business_id, key)
);
