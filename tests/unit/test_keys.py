from common.accounts import keys


def test_generated_keys_are_well_formed_and_distinct():
    generated = {keys.generate_key() for _ in range(200)}
    assert len(generated) == 200
    for key in generated:
        assert key.startswith("ars_live_")
        assert len(key) == len("ars_live_") + 32 + 6
        assert keys.is_well_formed(key)


def test_test_environment_prefix():
    assert keys.generate_key("test").startswith("ars_test_")
    assert keys.is_well_formed(keys.generate_key("test"))


def test_checksum_catches_a_changed_character():
    key = keys.generate_key()
    random_part = key[9:41]
    flipped = random_part[:-1] + ("A" if random_part[-1] != "A" else "B")
    assert not keys.is_well_formed(key[:9] + flipped + key[41:])


def test_malformed_keys_are_rejected():
    key = keys.generate_key()
    for bad in [
        "",
        "ars_live_",
        key[:-1],
        key + "x",
        key.replace("ars_", "sk_"),
        key.replace("live", "prod"),
        key[:20] + "-" + key[21:],
        " " + key,
    ]:
        assert not keys.is_well_formed(bad), bad


def test_hash_is_sha256_hex_and_not_the_key():
    key = keys.generate_key()
    digest = keys.hash_key(key)
    assert len(digest) == 64
    assert key not in digest
    assert keys.hash_key(key) == digest


def test_mask_shows_prefix_and_last_four_only():
    key = keys.generate_key()
    masked = keys.mask(key)
    assert masked.startswith("ars_live_")
    assert masked.endswith(key[-4:])
    assert key[13:-4] not in masked


def test_verify_rejects_malformed_keys_without_a_database_read(monkeypatch):
    def no_database(*_args):
        raise AssertionError("a malformed key must not reach the database")

    monkeypatch.setattr(keys, "_load_principal", no_database)
    assert keys.verify("ars_live_nope") is None
    key = keys.generate_key()
    wrong_checksum = key[:-1] + ("0" if key[-1] != "0" else "1")
    assert keys.verify(wrong_checksum) is None
