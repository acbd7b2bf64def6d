package bridge

const isLinux = true
