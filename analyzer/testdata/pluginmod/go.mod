module example.com/pluginmod

go 1.22
