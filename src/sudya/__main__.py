from sudya.cli.main import main

main()
