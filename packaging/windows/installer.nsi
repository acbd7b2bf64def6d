; elicitray's Windows installer (NSIS 3, Debian's makensis): a per-user
; install, no administrator needed, into %LOCALAPPDATA%\Programs\elicitray,
; with a Start-menu entry, an entry in Settings > Apps (the uninstaller),
; and an optional start at sign-in. `make package-windows` builds it, with
; the version stamped in; app/e2e/wine_test.go installs and uninstalls it
; under Wine.
;
; makensis -DVERSION=1.2.3 -DNUMVERSION=1.2.3.0 -DEXE=path\elicitray.exe
;          -DOUTFILE=path\setup.exe [-DCOMPRESSOR=zlib] installer.nsi
;
; Silent use (/S), as an administrator's script or the test runs it:
;   setup.exe /S [/AUTOSTART=0] [/D=DIR]   DIR last, unquoted, as NSIS wants
;   "Uninstall elicitray.exe" /S [/REMOVEDATA] [/KEEPHOSTS]
; Without /AUTOSTART=0 elicitray starts at sign-in; without /REMOVEDATA the
; history and settings stay; without /KEEPHOSTS every host's server entries
; get their own commands back (`elicitray hosts unwrap --all`), so that no
; host is left running a program that is gone. Either exits 2, having
; changed nothing it cannot finish, when it cannot do what it was asked
; (the program in use, a host's config that cannot be given back).

; A 64-bit installer, as elicitray.exe is a 64-bit program (Windows on x64
; and, by emulation, on Arm).
Target amd64-unicode
ManifestDPIAware true
RequestExecutionLevel user
; The release's installer is the smallest (lzma); make test-windows builds
; one with zlib, a quarter larger and four times faster to make.
!ifndef COMPRESSOR
  !define COMPRESSOR "/SOLID lzma"
!endif
SetCompressor ${COMPRESSOR}

!ifndef VERSION | NUMVERSION | EXE | OUTFILE
  !error "makensis needs -DVERSION, -DNUMVERSION, -DEXE and -DOUTFILE (make package-windows gives them)"
!endif

!define UNINSTKEY "Software\Microsoft\Windows\CurrentVersion\Uninstall\elicitray"
; Where elicitray keeps the user's files (app/platform/rundir.go,
; app/paths: adrg/xdg's directories on Windows are all LOCALAPPDATA).
!define DATADIR "$LOCALAPPDATA\elicitray"

!include MUI2.nsh
!include FileFunc.nsh
!include LogicLib.nsh

Name "elicitray"
OutFile "${OUTFILE}"
InstallDir "$LOCALAPPDATA\Programs\elicitray"
InstallDirRegKey HKCU "${UNINSTKEY}" "InstallLocation"
BrandingText "elicitray ${VERSION}"

VIProductVersion "${NUMVERSION}"
VIFileVersion "${NUMVERSION}"
VIAddVersionKey /LANG=0 "ProductName" "elicitray"
VIAddVersionKey /LANG=0 "ProductVersion" "${VERSION}"
VIAddVersionKey /LANG=0 "FileVersion" "${VERSION}"
VIAddVersionKey /LANG=0 "FileDescription" "elicitray setup"
VIAddVersionKey /LANG=0 "CompanyName" "elicitray"
VIAddVersionKey /LANG=0 "LegalCopyright" "the elicitray authors"

!define MUI_WELCOMEPAGE_TEXT "$(Welcome)"
!define MUI_ICON "elicitray.ico"
!define MUI_UNICON "elicitray.ico"
!define MUI_ABORTWARNING
!define MUI_COMPONENTSPAGE_NODESC
!define MUI_FINISHPAGE_RUN
!define MUI_FINISHPAGE_RUN_TEXT "$(RunNow)"
!define MUI_FINISHPAGE_RUN_FUNCTION RunNow

!insertmacro MUI_PAGE_WELCOME
!insertmacro MUI_PAGE_COMPONENTS
!insertmacro MUI_PAGE_DIRECTORY
!insertmacro MUI_PAGE_INSTFILES
!insertmacro MUI_PAGE_FINISH
!insertmacro MUI_UNPAGE_CONFIRM
!insertmacro MUI_UNPAGE_COMPONENTS
!insertmacro MUI_UNPAGE_INSTFILES

; The app speaks English and Simplified Chinese (ui/lang); so does its
; installer, in the language of the user's Windows when it is one of them.
!insertmacro MUI_LANGUAGE "English"
!insertmacro MUI_LANGUAGE "SimpChinese"

LangString Welcome ${LANG_ENGLISH} "elicitray shows the questions MCP servers ask in the middle of a tool call as windows on your desktop, for every host.$\r$\n$\r$\nIt installs for you alone; no administrator is needed. Then wrap your hosts' servers with elicitray hosts wrap (the README says how).$\r$\n$\r$\nClick Next to continue."
LangString Welcome ${LANG_SIMPCHINESE} "elicitray 会把 MCP 服务器在工具调用过程中提出的问题，以桌面窗口的形式显示出来，适用于所有主机。$\r$\n$\r$\n它只为你本人安装，无需管理员权限。安装后，用 elicitray hosts wrap 包装主机中的服务器（README 中有说明）。$\r$\n$\r$\n单击“下一步”继续。"
LangString SecApp ${LANG_ENGLISH} "elicitray"
LangString SecApp ${LANG_SIMPCHINESE} "elicitray"
LangString SecAutostart ${LANG_ENGLISH} "Start elicitray when I sign in"
LangString SecAutostart ${LANG_SIMPCHINESE} "登录时启动 elicitray"
LangString RunNow ${LANG_ENGLISH} "Start elicitray now"
LangString RunNow ${LANG_SIMPCHINESE} "立即启动 elicitray"
LangString InUse ${LANG_ENGLISH} "elicitray.exe in $INSTDIR cannot be replaced: it is in use. Quit elicitray and your MCP hosts (Claude Desktop, Cursor, VS Code…), then choose Retry."
LangString InUse ${LANG_SIMPCHINESE} "无法替换 $INSTDIR 中的 elicitray.exe：它正在使用中。请退出 elicitray 和你的 MCP 主机（Claude Desktop、Cursor、VS Code…），然后选择“重试”。"
LangString Elsewhere ${LANG_ENGLISH} "elicitray is already installed in $R9. Uninstall it first (Settings > Apps), or install into that folder: your hosts' configs run the program there."
LangString Elsewhere ${LANG_SIMPCHINESE} "elicitray 已安装在 $R9。请先卸载它（设置 > 应用），或安装到该文件夹：你的主机配置运行的是那里的程序。"
LangString UnHosts ${LANG_ENGLISH} "Give my MCP hosts' servers back their own commands"
LangString UnHosts ${LANG_SIMPCHINESE} "让 MCP 主机配置中的服务器恢复各自原来的命令"
LangString UnHostsFailed ${LANG_ENGLISH} "Some MCP hosts' configs could not be given back: their servers would fail to start once elicitray is gone. To see which and why, run in a terminal:$\r$\n$\r$\n$\"$INSTDIR\elicitray.exe$\" hosts unwrap --all$\r$\n$\r$\nUninstall anyway?"
LangString UnHostsFailed ${LANG_SIMPCHINESE} "部分 MCP 主机的配置无法恢复：卸载 elicitray 后，这些服务器将无法启动。要查看是哪些以及原因，请在终端中运行：$\r$\n$\r$\n$\"$INSTDIR\elicitray.exe$\" hosts unwrap --all$\r$\n$\r$\n仍要卸载吗？"
LangString UnInUse ${LANG_ENGLISH} "elicitray.exe is in use: an MCP host (Claude Desktop, Cursor, VS Code…) still runs a server through it. Quit the host, then choose Retry."
LangString UnInUse ${LANG_SIMPCHINESE} "elicitray.exe 正在使用中：某个 MCP 主机（Claude Desktop、Cursor、VS Code…）仍在通过它运行服务器。请退出该主机，然后选择“重试”。"
LangString UnData ${LANG_ENGLISH} "Also delete my history, rules and settings"
LangString UnData ${LANG_SIMPCHINESE} "同时删除我的历史记录、规则和设置"

!define UNINSTALLER "Uninstall elicitray.exe"

; waitFree PATH LABEL: waits a little for PATH to be free to write (a hub
; told to quit takes a moment to end); jumps to LABEL if it still is not.
!macro waitFree PATH LABEL
  StrCpy $R8 0
  ${Do}
    ClearErrors
    FileOpen $R7 "${PATH}" a
    ${IfNot} ${Errors}
      FileClose $R7
      ${Break}
    ${EndIf}
    IntOp $R8 $R8 + 1
    ${If} $R8 >= 50
      Goto ${LABEL}
    ${EndIf}
    Sleep 200
  ${Loop}
!macroend

Section "!$(SecApp)" SecApp
  SectionIn RO
  ; An install in another folder would be left behind, and the hosts'
  ; configs run the program there.
  ReadRegStr $R9 HKCU "${UNINSTKEY}" "InstallLocation"
  ${If} $R9 != ""
  ${AndIf} $R9 != $INSTDIR
  ${AndIf} ${FileExists} "$R9\elicitray.exe"
    MessageBox MB_OK|MB_ICONSTOP "$(Elsewhere)" /SD IDOK
    SetErrorLevel 2
    Abort
  ${EndIf}
  ${If} ${FileExists} "$INSTDIR\elicitray.exe"
    ; The hub of the earlier install quits; a server a host still runs
    ; through it keeps it in use, and a program in use can be renamed but
    ; not replaced: it is moved aside, and goes when nothing runs it (the
    ; next install or the uninstaller deletes it).
    nsExec::Exec '"$INSTDIR\elicitray.exe" quit'
    Pop $0
    Delete "$INSTDIR\elicitray-old-*.exe"
    retry:
    !insertmacro waitFree "$INSTDIR\elicitray.exe" aside
    Goto free
    aside:
    StrCpy $1 1
    ${DoWhile} ${FileExists} "$INSTDIR\elicitray-old-$1.exe"
      IntOp $1 $1 + 1
    ${Loop}
    Rename "$INSTDIR\elicitray.exe" "$INSTDIR\elicitray-old-$1.exe"
    ${If} ${FileExists} "$INSTDIR\elicitray.exe"
      MessageBox MB_RETRYCANCEL|MB_ICONEXCLAMATION "$(InUse)" /SD IDCANCEL IDRETRY retry
      SetErrorLevel 2
      Abort
    ${EndIf}
    free:
  ${EndIf}
  SetOutPath "$INSTDIR"
  File "/oname=elicitray.exe" "${EXE}"
  WriteUninstaller "$INSTDIR\${UNINSTALLER}"
  ; The Start-menu entry opens History, as the Linux launcher entry does;
  ; the hub and its tray icon start with it.
  CreateShortcut "$SMPROGRAMS\elicitray.lnk" "$INSTDIR\elicitray.exe" "history window" "$INSTDIR\elicitray.exe" 0
  WriteRegStr HKCU "${UNINSTKEY}" "DisplayName" "elicitray"
  WriteRegStr HKCU "${UNINSTKEY}" "DisplayVersion" "${VERSION}"
  WriteRegStr HKCU "${UNINSTKEY}" "Publisher" "elicitray"
  WriteRegStr HKCU "${UNINSTKEY}" "DisplayIcon" "$INSTDIR\elicitray.exe,0"
  WriteRegStr HKCU "${UNINSTKEY}" "InstallLocation" "$INSTDIR"
  WriteRegStr HKCU "${UNINSTKEY}" "UninstallString" '"$INSTDIR\${UNINSTALLER}"'
  WriteRegStr HKCU "${UNINSTKEY}" "QuietUninstallString" '"$INSTDIR\${UNINSTALLER}" /S'
  WriteRegDWORD HKCU "${UNINSTKEY}" "NoModify" 1
  WriteRegDWORD HKCU "${UNINSTKEY}" "NoRepair" 1
  ${GetSize} "$INSTDIR" "/M=elicitray.exe /S=0K" $0 $1 $2
  WriteRegDWORD HKCU "${UNINSTKEY}" "EstimatedSize" $0
SectionEnd

; The app's own command writes the sign-in entry (HKCU\...\Run), so that
; `elicitray autostart status` and Settings agree with what was chosen;
; unticked, an earlier install's entry goes.
Section "$(SecAutostart)" SecAutostart
  nsExec::Exec '"$INSTDIR\elicitray.exe" autostart on'
  Pop $0
SectionEnd

Section "-AutostartOff"
  ${IfNot} ${SectionIsSelected} ${SecAutostart}
    nsExec::Exec '"$INSTDIR\elicitray.exe" autostart off'
    Pop $0
  ${EndIf}
SectionEnd

Function .onInit
  ${GetParameters} $R0
  ClearErrors
  ${GetOptions} $R0 "/AUTOSTART=" $R1
  ${IfNot} ${Errors}
  ${AndIf} $R1 == "0"
    SectionSetFlags ${SecAutostart} 0
  ${EndIf}
FunctionEnd

Function RunNow
  Exec '"$INSTDIR\elicitray.exe"'
FunctionEnd

; The uninstaller runs the app's commands from a copy of it, so that the
; installed program can go; nothing is changed before it is known that it
; can (no server runs through it).
Section "-un.Prepare"
  InitPluginsDir
  CopyFiles /SILENT "$INSTDIR\elicitray.exe" "$PLUGINSDIR\elicitray.exe"
  nsExec::Exec '"$PLUGINSDIR\elicitray.exe" quit'
  Pop $0
  ; The program, and any earlier one an upgrade moved aside, while a
  ; host still runs a server through it.
  retry:
  FindFirst $R5 $R6 "$INSTDIR\elicitray*.exe"
  ${DoWhile} $R6 != ""
    !insertmacro waitFree "$INSTDIR\$R6" inUse
    FindNext $R5 $R6
  ${Loop}
  FindClose $R5
  Goto free
  inUse:
  FindClose $R5
  MessageBox MB_RETRYCANCEL|MB_ICONEXCLAMATION "$(UnInUse)" /SD IDCANCEL IDRETRY retry
  SetErrorLevel 2
  Abort
  free:
SectionEnd

; Before the program goes: hosts whose configs run servers through it
; would fail to start them.
Section "un.$(UnHosts)" UnHosts
  nsExec::Exec '"$PLUGINSDIR\elicitray.exe" hosts unwrap --all'
  Pop $0
  ${If} $0 != 0
    MessageBox MB_YESNO|MB_ICONEXCLAMATION "$(UnHostsFailed)" /SD IDNO IDYES anyway
    SetErrorLevel 2
    Abort
    anyway:
  ${EndIf}
SectionEnd

Section "-un.Program"
  nsExec::Exec '"$PLUGINSDIR\elicitray.exe" autostart off'
  Pop $0
  Delete "$INSTDIR\elicitray.exe"
  Delete "$INSTDIR\elicitray-old-*.exe"
  Delete "$INSTDIR\${UNINSTALLER}"
  RMDir "$INSTDIR"
  Delete "$SMPROGRAMS\elicitray.lnk"
  DeleteRegKey HKCU "${UNINSTKEY}"
SectionEnd

Section /o "un.$(UnData)" UnData
  RMDir /r "${DATADIR}"
  ; Fyne's own store for the app (its ID, FyneApp.toml).
  RMDir /r "$APPDATA\fyne\io.github.elicitray"
  RMDir "$APPDATA\fyne"
SectionEnd

Function un.onInit
  ${GetParameters} $R0
  ClearErrors
  ${GetOptions} $R0 "/REMOVEDATA" $R1
  ${IfNot} ${Errors}
    SectionSetFlags ${UnData} ${SF_SELECTED}
  ${EndIf}
  ClearErrors
  ${GetOptions} $R0 "/KEEPHOSTS" $R1
  ${IfNot} ${Errors}
    SectionSetFlags ${UnHosts} 0
  ${EndIf}
FunctionEnd
