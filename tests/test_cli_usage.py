"""An unknown flag is answered by the command that was given it, with that command's usage."""

import pytest

from remask.cli import main


@pytest.mark.parametrize("argv, prog", [
    (["fill", "x.py", "--nonsense"], "remask fill"),
    (["bench", "infill", "--nonsense"], "remask bench infill"),
    (["hook", "run", "--nonsense"], "remask hook run"),
])
def test_an_unknown_flag_shows_its_own_commands_usage(argv, prog, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"usage: {prog} [-h]")
    assert err.splitlines()[-1] == f"{prog}: error: unrecognized arguments: --nonsense"
